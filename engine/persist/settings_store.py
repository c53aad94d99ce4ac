"""Persists the app's state (engine settings, input choice, gallery list, outputs) as
versioned JSON.

A front-end keeps its own state in the same file by extending `AppState` (the desktop
app's window layout, its language and the responsible-use notice accepted:
app/gui/layout_state.py) and passing its class to `load`; the CLI reads the plain
`AppState` and never sees the window's fields (and keeps them when it saves).

The file lives in the user's config dir (platformdirs), or in `$FUSECAM_CONFIG_DIR` when
set (tests, portable installs). Loading never raises: every field is checked on its own
(engine.core.dataclass_json), an invalid one falls back to its default with a message,
a corrupt or unreadable file gives the defaults; either way the file as it was is kept
beside the new one (`settings.json.bad.1`, the older ones moved up to `.bad.5`), so
nothing the user configured is silently destroyed.

Saving loses nothing either: keys this version does not know (a newer version's, or a
setting a plugin or a later release added) are read back from the file and written
again as they were; a file from a newer format is not overwritten at all (its known
keys may mean something else there), and `save` says so. The file is the owner's alone
(0600): it may hold the stream's access token. No Qt here.
"""

from __future__ import annotations

import json
import logging
import os
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

import platformdirs

from engine.core.atomic import write_bytes_atomic
from engine.core.dataclass_json import (
    build_dataclass,
    changed_leaves,
    merge_unknown,
    to_json,
    unknown_keys,
)
from engine.core.settings import EngineSettings
from engine.outputs.delay import MAX_DELAY_MS
from engine.sources.choice import InputChoice

log = logging.getLogger(__name__)

CONFIG_ENV = "FUSECAM_CONFIG_DIR"
FILE_NAME = "settings.json"
# 2: swap.alpha split into blend and latent_blend; 3: swap.follow_eyes → swap.eyes;
# 4: the window's layout moved into its own "layout" section (the GUI's); 5: the GUI's
# language and the notice accepted moved into its "desktop" section
VERSION = 5
# A settings file is a few kilobytes; anything far larger is not one (and is not parsed).
MAX_FILE_BYTES = 1 << 20
BACKUPS = 5  # generations of replaced files kept: settings.json.bad.1 (newest) .. .bad.5
PRIVATE = 0o600  # the file and its backups may hold the stream token


class SettingsNotSaved(OSError):
    """The file on disk must not be replaced (a newer version's); the message says why."""


@dataclass(frozen=True, slots=True)
class GalleryEntry:
    """One source face: one or more photos of the same person."""

    paths: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.paths:
            raise ValueError("a gallery entry needs at least one path")


@dataclass(frozen=True, slots=True)
class AppState:
    engine: EngineSettings = field(default_factory=EngineSettings)
    input: InputChoice = field(default_factory=InputChoice)
    gallery: tuple[GalleryEntry, ...] | None = None  # None: never set → bundled samples
    record_dir: str | None = None
    stream_port: int = 8080  # 0: any free port
    output_delay_ms: int = 0
    # Outputs switched on at exit come back on ("virtual_camera", "stream"), and their options.
    outputs_on: tuple[str, ...] = ()
    vcam_device: str | None = None  # None: the first free one
    stream_lan: bool = False  # reachable from other devices (with `stream_token`)
    stream_token: str | None = None
    record_side_by_side: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.stream_port <= 65535:
            raise ValueError(f"stream port {self.stream_port} is out of range (0..65535)")
        if not 0 <= self.output_delay_ms <= MAX_DELAY_MS:
            raise ValueError(f"output delay must be in 0..{MAX_DELAY_MS} ms")


S = TypeVar("S", bound=AppState)


@dataclass(frozen=True, slots=True)
class LoadResult(Generic[S]):
    state: S
    messages: tuple[str, ...] = ()


def config_dir() -> Path:
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("fusecam", appauthor=False))


def settings_path() -> Path:
    return config_dir() / FILE_NAME


# --- migrations ----------------------------------------------------------------------


def _split_alpha(data: dict[str, Any]) -> dict[str, Any]:
    """1 → 2: `swap.alpha` was one value for two things — the built-in swapper's pixel
    cross-fade and the neural swapper's latent mix. Both new settings take it, so the
    picture stays as it was with either swapper."""
    engine = data.get("engine")
    swap = engine.get("swap") if isinstance(engine, dict) else None
    if isinstance(swap, dict) and "alpha" in swap:
        alpha = swap.pop("alpha")
        swap.setdefault("blend", alpha)
        swap.setdefault("latent_blend", alpha)
    return {**data, "version": 2}


def _eyes_mode(data: dict[str, Any]) -> dict[str, Any]:
    """2 → 3: the on/off `swap.follow_eyes` became the three-way `swap.eyes`. On
    ("the photo's eyes, turned to look where you look") keeps that mode; off was the
    default and takes the new default, your own eyes."""
    engine = data.get("engine")
    swap = engine.get("swap") if isinstance(engine, dict) else None
    if isinstance(swap, dict) and "follow_eyes" in swap and swap.pop("follow_eyes") is True:
        swap.setdefault("eyes", "photo_following")
    return {**data, "version": 3}


# Format 3's top-level keys of the window's layout → their names in the "layout" section.
_LAYOUT_KEYS = {
    "window_geometry": "geometry",
    "show_hud": "show_hud",
    "hud_corner": "hud_corner",
    "hud_size": "hud_size",
    "gallery_height": "gallery_height",
    "controls_visible": "controls_visible",
}


def _layout_section(data: dict[str, Any]) -> dict[str, Any]:
    """3 → 4: the window's layout (geometry, gallery height, controls dock, HUD) was six
    top-level keys beside the engine's state; it moved, values as they were, into one
    "layout" section that only the GUI reads (app/gui/layout_state.py)."""
    moved = {new: data.pop(old) for old, new in _LAYOUT_KEYS.items() if old in data}
    layout = data.get("layout")
    if moved:
        data["layout"] = {**layout, **moved} if isinstance(layout, dict) else moved
    return {**data, "version": 4}


# Format 4's top-level keys only the desktop app reads (its language, the first-run
# notice accepted), kept under the same names in its "desktop" section.
_DESKTOP_KEYS = ("language", "notice_accepted")


def _desktop_section(data: dict[str, Any]) -> dict[str, Any]:
    """4 → 5: the window's language and whether the responsible-use notice was accepted
    were top-level keys beside the engine's state; no other front-end reads them (the
    command line has no translations and shows no notice), so they moved, values as
    they were, into the "desktop" section (app/gui/layout_state.py)."""
    moved = {key: data.pop(key) for key in _DESKTOP_KEYS if key in data}
    desktop = data.get("desktop")
    if moved:
        data["desktop"] = {**desktop, **moved} if isinstance(desktop, dict) else moved
    return {**data, "version": 5}


# version N → N+1, applied in order to the raw JSON object.
MIGRATIONS: dict[int, typing.Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _split_alpha,
    2: _eyes_mode,
    3: _layout_section,
    4: _desktop_section,
}


def _migrate(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    notes: list[str] = []
    version = data.get("version", 1)
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"bad version field {version!r}")
    while version < VERSION:
        data = MIGRATIONS[version](data)
        version += 1
    if version > VERSION:
        notes.append(
            f"settings were written by a newer Fusecam (format {version}); settings this "
            "version does not know were ignored, and the file is left as it is (changes "
            "made in this version are not saved)"
        )
    return data, notes


# --- load / save ---------------------------------------------------------------------


def backup_path(path: Path, generation: int) -> Path:
    return path.with_name(f"{path.name}.bad.{generation}")


def _keep_bad_file(path: Path, *, move: bool) -> str:
    """Keep the file as the user had it beside the new one, as backup 1 (the earlier
    backups each move up one, the oldest beyond BACKUPS goes); a sentence saying where."""
    bad = backup_path(path, 1)
    try:
        for generation in range(BACKUPS - 1, 0, -1):
            older = backup_path(path, generation)
            if older.exists():
                older.replace(backup_path(path, generation + 1))
        if move:
            path.replace(bad)
            bad.chmod(PRIVATE)
        else:
            write_bytes_atomic(bad, path.read_bytes(), mode=PRIVATE)
    except OSError:
        return ""
    return f" The file as it was is kept as {bad}."


def _read(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The file's object, migrated; ValueError (or OSError) when it cannot be one."""
    return _migrate(_read_object(path))


def _read_object(path: Path) -> dict[str, Any]:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"over {MAX_FILE_BYTES // 1024} KB: not a settings file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:  # nested deeper than the parser's stack
        raise ValueError("nested too deeply to be a settings file") from None
    if not isinstance(data, dict):
        raise ValueError("the file does not hold a JSON object")
    return data


@overload
def load(path: Path | None = None) -> LoadResult[AppState]: ...
@overload
def load(path: Path | None = None, *, kind: type[S]) -> LoadResult[S]: ...


def load(path: Path | None = None, *, kind: type[AppState] = AppState) -> LoadResult[Any]:
    """Never raises: problems come back as messages, the state falls back to defaults.
    `kind`: the front-end's extension of `AppState` (its own fields read too)."""
    path = path or settings_path()
    try:
        return _load(path, kind)
    except Exception as exc:
        # Not reached by any file we know of (the checks above and in dataclass_json
        # cover them, and a fuzz test hunts for more); if a bug does, the app must
        # still start, with its defaults and the file kept.
        log.exception("loading settings from %s failed", path)
        kept = _keep_bad_file(path, move=True)
        return LoadResult(kind(), (f"Settings file {path} could not be used ({exc}).{kept}",))


def _load(path: Path, kind: type[AppState]) -> LoadResult[Any]:
    if not path.exists():
        return LoadResult(kind())
    try:
        data, notes = _read(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        kept = _keep_bad_file(path, move=True)
        return LoadResult(
            kind(),
            (f"Settings file {path} could not be read ({exc}); using defaults.{kept}",),
        )
    problems: list[str] = []
    data.pop("version", None)
    state = build_dataclass(kind, data, "", problems)
    messages = list(notes)
    if problems:
        shown = "; ".join(problems[:4]) + (" …" if len(problems) > 4 else "")
        kept = _keep_bad_file(path, move=False)
        messages.append(f"Some saved settings were invalid and reset to defaults: {shown}.{kept}")
    return LoadResult(state, tuple(messages))


def save(state: AppState, path: Path | None = None) -> None:
    """Atomic write (temp file + rename) so a crash mid-write never corrupts the file;
    the keys of the file on disk this version (and `state`'s class: a front-end's
    fields are its own) does not know are kept. Raises
    SettingsNotSaved for a newer version's file, OSError when the write fails."""
    path = path or settings_path()
    data: dict[str, Any] = {"version": VERSION, **to_json(state)}
    data["engine"] = changed_leaves(state.engine, EngineSettings())
    data = merge_unknown(data, _unknown_on_disk(path, type(state)))
    write_bytes_atomic(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=PRIVATE)


def _unknown_on_disk(path: Path, kind: type[AppState]) -> dict[str, Any]:
    """What the file now on disk holds that this version does not know. A file that
    cannot be read is kept as a backup before it is replaced."""
    try:
        on_disk = _read_object(path)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning(
            "replacing unreadable settings file %s (%s)%s",
            path,
            exc,
            _keep_bad_file(path, move=False),
        )
        return {}
    version = on_disk.get("version", 1)
    if isinstance(version, int) and version > VERSION:
        raise SettingsNotSaved(
            f"{path} was written by a newer Fusecam (format {version}); this version "
            "leaves it as it is, so the changes made now are not saved"
        )
    try:
        migrated, _ = _migrate(on_disk)
    except ValueError:
        return {}  # a bad version field: nothing this version can read there to keep
    migrated.pop("version", None)
    return unknown_keys(kind, migrated)
