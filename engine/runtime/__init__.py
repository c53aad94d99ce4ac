"""The live machinery front-ends drive: the engine thread (pipeline), the live session,
stage assembly (factory), the quality governor, the swap check the output guard asks,
and the frame previews. Benchmarks, doctor and offline runs are engine.tools; the
settings file is engine.persist."""
