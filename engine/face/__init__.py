"""Face analysis: BlazeFace detection, 468-point mesh, tracking and the 3DMM-style fit."""
