"""The live machinery front-ends drive: the engine thread, the live session, stage
assembly, the quality governor, `fusecam bench` and offline runs."""
