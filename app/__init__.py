"""Fusecam's front-ends only: app/cli (argparse) and app/gui (Qt, the only code that
imports PySide6). Everything they drive is in engine/."""

# The one place the version is written: pyproject.toml reads it (dynamic version), and
# `fusecam --version` and the bundle report it without needing the installed metadata.
__version__ = "0.1.0"
