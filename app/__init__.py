"""Fusecam desktop app and command line. The only package that imports PySide6."""
