"""The desktop app: the only package that imports PySide6 (imported lazily by the CLI, so
headless commands never load Qt). Widgets draw; controllers drive the engine."""
