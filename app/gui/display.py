"""Whether a GUI can be shown here, and what to tell the user when not."""

from __future__ import annotations

import os
import sys

HEADLESS_HINT = (
    "No display found: the Fusecam window needs a desktop session.\n"
    "Headless instead:  fusecam run --demo --no-preview --frames 300 --record out.mp4\n"
    "(or set QT_QPA_PLATFORM=offscreen to render without a screen)"
)


def has_display() -> bool:
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    # Only Linux/BSD desktops can lack a display server; Windows and macOS always have one.
    needs_server = sys.platform not in ("win32", "darwin")
    return not needs_server or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
