"""The desktop app's own state as the settings file keeps it: the window's layout (where
the window sat, the gallery's height, the controls dock and the HUD) and the app's
language and first-run notice. GUI matters, so they live here rather than in the
engine's `AppState`; `GuiState` adds them to that state as its "layout" and "desktop"
sections, and `load` reads the file with them (engine/persist/settings_store.py does
the rest: versions, validation, unknown keys, backups). No Qt here: the file is read
before the window exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engine.persist import settings_store
from engine.persist.settings_store import AppState, LoadResult

Corner = Literal["top-left", "top-right", "bottom-left", "bottom-right"]
HudSize = Literal["auto", "compact", "full"]


@dataclass(frozen=True, slots=True)
class LayoutState:
    geometry: str | None = None  # Qt saveGeometry(), base64
    show_hud: bool = True
    hud_corner: Corner = "top-left"
    hud_size: HudSize = "auto"
    gallery_height: int = 0  # px; 0: sized to the window
    controls_visible: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.gallery_height <= 10_000:  # Qt takes a C int; no screen is taller
            raise ValueError(f"gallery height {self.gallery_height} px is out of range")


@dataclass(frozen=True, slots=True)
class DesktopState:
    """What only the desktop app reads: the command line shows no responsible-use notice
    and prints English (its `run` preview window installs no translation either)."""

    language: str = ""  # "de", "en"…; "": the system's
    notice_accepted: bool = False  # the responsible-use notice, shown until accepted


@dataclass(frozen=True, slots=True)
class GuiState(AppState):
    """What the desktop app saves: the engine's and outputs' state, its layout, its
    language and the notice accepted."""

    layout: LayoutState = field(default_factory=LayoutState)
    desktop: DesktopState = field(default_factory=DesktopState)


def load(path: Path | None = None) -> LoadResult[GuiState]:
    """The saved state with the window's layout; never raises (see settings_store.load)."""
    return settings_store.load(path, kind=GuiState)
