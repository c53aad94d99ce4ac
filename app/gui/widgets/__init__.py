"""Widgets: they draw and emit signals; the controllers drive the engine."""
