"""The X11 (xcb) libraries Qt's Linux window needs, which of them are missing, and the
package that brings each on the common distributions.

Qt 6.5+ refuses to start its xcb platform plugin without libxcb-cursor0, and a stock
Debian/Ubuntu desktop may lack it and a few other xcb utility libraries; Qt then aborts
with "could not load the Qt platform plugin xcb" and no package name. What Qt needs is
read from the installed plugin itself (its ELF `DT_NEEDED` entries), plus the libraries
Qt opens at run time; each is checked by asking the dynamic loader for it. Qt-free: the
files are read, never imported.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import sys
from pathlib import Path

from engine.models.gpu import elf_needed

# Opened by Qt at run time (dlopen), so not among the plugin's linked libraries.
RUNTIME_OPENED = ("libxcb-cursor.so.0",)
# Checked when the plugin files cannot be found (what Qt 6.5-6.10's xcb plugin links).
KNOWN_NEEDED = (
    "libxcb.so.1",
    "libxcb-cursor.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-randr.so.0",
    "libxcb-render-util.so.0",
    "libxcb-shape.so.0",
    "libxcb-shm.so.0",
    "libxcb-sync.so.1",
    "libxcb-xfixes.so.0",
    "libxcb-xkb.so.1",
    "libxkbcommon-x11.so.0",
    "libxkbcommon.so.0",
    "libX11-xcb.so.1",
)
SYSTEM_LIBRARY = re.compile(r"^lib(xcb|xkbcommon|X11)[\w.-]*\.so")
DISTRIBUTIONS = ("Debian/Ubuntu", "Fedora", "Arch", "openSUSE")
INSTALL = {
    "Debian/Ubuntu": "sudo apt install",
    "Fedora": "sudo dnf install",
    "Arch": "sudo pacman -S",
    "openSUSE": "sudo zypper install",
}
# library → package (Debian/Ubuntu, Fedora, Arch, openSUSE).
PACKAGES: dict[str, tuple[str, str, str, str]] = {
    "libxcb.so.1": ("libxcb1", "libxcb", "libxcb", "libxcb1"),
    "libxcb-cursor.so.0": (
        "libxcb-cursor0",
        "xcb-util-cursor",
        "xcb-util-cursor",
        "libxcb-cursor0",
    ),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm", "libxcb-icccm4"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util", "xcb-util", "libxcb-util1"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image", "xcb-util-image", "libxcb-image0"),
    "libxcb-keysyms.so.1": (
        "libxcb-keysyms1",
        "xcb-util-keysyms",
        "xcb-util-keysyms",
        "libxcb-keysyms1",
    ),
    "libxcb-render-util.so.0": (
        "libxcb-render-util0",
        "xcb-util-renderutil",
        "xcb-util-renderutil",
        "libxcb-render-util0",
    ),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb", "libxcb", "libxcb-randr0"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb", "libxcb", "libxcb-render0"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb", "libxcb", "libxcb-shape0"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb", "libxcb", "libxcb-shm0"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb", "libxcb", "libxcb-sync1"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb", "libxcb", "libxcb-xfixes0"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb", "libxcb", "libxcb-xkb1"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb", "libxcb", "libxcb-xinput0"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb", "libxcb", "libxcb-glx0"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon", "libxkbcommon", "libxkbcommon0"),
    "libxkbcommon-x11.so.0": (
        "libxkbcommon-x11-0",
        "libxkbcommon-x11",
        "libxkbcommon-x11",
        "libxkbcommon-x11-0",
    ),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb", "libx11", "libX11-xcb1"),
    "libX11.so.6": ("libx11-6", "libX11", "libx11", "libX11-6"),
}


def qt_xcb_files() -> list[Path]:
    """The installed Qt's xcb platform plugin and its support library (none: [])."""
    spec = importlib.util.find_spec("PySide6")  # located, not imported
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = Path(next(iter(spec.submodule_search_locations))) / "Qt"
    files = [qt / "plugins" / "platforms" / "libqxcb.so", qt / "lib" / "libQt6XcbQpa.so.6"]
    return [f for f in files if f.is_file()]


def needed_libraries(files: list[Path] | None = None) -> list[str]:
    """The system libraries Qt's xcb window needs, read from its files where they exist."""
    files = qt_xcb_files() if files is None else files
    linked = [name for f in files for name in elf_needed(f) if SYSTEM_LIBRARY.match(name)]
    if not linked:
        return list(KNOWN_NEEDED)
    return list(dict.fromkeys([*linked, *RUNTIME_OPENED]))


def loadable(name: str) -> bool:
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def missing_libraries(names: list[str] | None = None) -> list[str]:
    """Which of `names` (default: what Qt's xcb window needs) the loader cannot find."""
    if sys.platform != "linux":
        return []
    return [name for name in (needed_libraries() if names is None else names) if not loadable(name)]


def install_commands(missing: list[str]) -> list[str]:
    """One install command per distribution for the packages that bring `missing`."""
    lines = []
    for column, distribution in enumerate(DISTRIBUTIONS):
        packages = dict.fromkeys(PACKAGES[n][column] for n in missing if n in PACKAGES)
        if packages:
            lines.append(f"{INSTALL[distribution]} {' '.join(packages)}    # {distribution}")
    unknown = [n for n in missing if n not in PACKAGES]
    if unknown:
        lines.append(
            "and the packages providing "
            + ", ".join(unknown)
            + " (Debian: apt-file search NAME; Fedora: dnf provides '*/NAME')"
        )
    return lines


def uses_xcb() -> bool:
    """Whether Qt will open its window through X11 here (not Wayland, not offscreen)."""
    if sys.platform != "linux":
        return False
    chosen = os.environ.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(";")[0].startswith("xcb")
    # Qt picks Wayland in a Wayland session when its plugin loads; X11 otherwise.
    return bool(os.environ.get("DISPLAY")) and not os.environ.get("WAYLAND_DISPLAY")


def missing_text(missing: list[str]) -> str:
    """What to tell a user whose window cannot open: the libraries and the commands."""
    return (
        "The Fusecam window needs X11 libraries that are not installed: "
        + ", ".join(missing)
        + ". Install them with one of:\n  "
        + "\n  ".join(install_commands(missing))
    )
