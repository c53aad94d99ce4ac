"""Whether a GUI can be shown here, and what to tell the user when not."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

NO_DISPLAY_EXIT = 3  # `make run` treats it as said, not as a failure


def program() -> str:
    """The command as the user can type it: `fusecam` when that is on PATH and is this
    program, else the path it was started by (`.venv/bin/fusecam` after `make run`)."""
    started = Path(sys.argv[0])
    on_path = shutil.which("fusecam")
    if on_path and started.name == "fusecam" and Path(on_path).resolve() == started.resolve():
        return "fusecam"
    if started.name != "fusecam":
        return "fusecam"  # python -m app.cli, or the bundle's entry script
    try:
        return str(started.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(started)


def headless_hint() -> str:
    return (
        "No display found: the Fusecam window needs a desktop session.\n"
        f"Headless instead:  {program()} run --demo --no-preview --frames 300 --record out.mp4\n"
        "(or set QT_QPA_PLATFORM=offscreen to render without a screen)"
    )


def has_display() -> bool:
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    # Only Linux/BSD desktops can lack a display server; Windows and macOS always have one.
    needs_server = sys.platform not in ("win32", "darwin")
    return not needs_server or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
