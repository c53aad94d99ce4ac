"""Fusecam engine: sources, stages, pipeline and sinks. Never imports Qt."""
