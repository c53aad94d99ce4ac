"""Persists the app's state (engine settings, input choice, gallery list) as versioned JSON.

The file lives in the user's config dir (platformdirs), or in `$FUSECAM_CONFIG_DIR` when
set (tests, portable installs). Loading never raises: a corrupt or unreadable file gives
the defaults plus a message for the user, and the bad file is kept beside the new one so
nothing the user configured is silently destroyed. No Qt here.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import platformdirs

from engine.core.settings import EngineSettings
from engine.sources.choice import InputChoice

log = logging.getLogger(__name__)

CONFIG_ENV = "FUSECAM_CONFIG_DIR"
FILE_NAME = "settings.json"
VERSION = 1


@dataclass(frozen=True, slots=True)
class GalleryEntry:
    """One source face: one or more photos of the same person."""

    paths: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.paths:
            raise ValueError("a gallery entry needs at least one path")


HudCorner = Literal["top-left", "top-right", "bottom-left", "bottom-right"]
HudSize = Literal["auto", "compact", "full"]


@dataclass(frozen=True, slots=True)
class AppState:
    engine: EngineSettings = field(default_factory=EngineSettings)
    input: InputChoice = field(default_factory=InputChoice)
    gallery: tuple[GalleryEntry, ...] | None = None  # None: never set → bundled samples
    notice_accepted: bool = False
    show_hud: bool = True
    record_dir: str | None = None
    stream_port: int = 8080  # 0: any free port
    output_delay_ms: int = 0
    window_geometry: str | None = None  # Qt saveGeometry(), base64
    # Outputs switched on at exit come back on ("virtual_camera", "stream"), and their options.
    outputs_on: tuple[str, ...] = ()
    vcam_device: str | None = None  # None: the first free one
    stream_lan: bool = False  # reachable from other devices (with `stream_token`)
    stream_token: str | None = None
    record_side_by_side: bool = False
    hud_corner: HudCorner = "top-left"
    hud_size: HudSize = "auto"
    gallery_height: int = 0  # px; 0: sized to the window
    controls_visible: bool = True
    language: str = ""  # "de", "en"…; "": the system's


@dataclass(frozen=True, slots=True)
class LoadResult:
    state: AppState
    messages: tuple[str, ...] = ()


def config_dir() -> Path:
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("fusecam", appauthor=False))


def settings_path() -> Path:
    return config_dir() / FILE_NAME


# --- dataclass <-> JSON --------------------------------------------------------------


def changed_leaves(value: Any, default: Any) -> dict[str, Any]:
    """The JSON of the fields of a dataclass tree that differ from `default`'s.

    Engine settings are saved this way so that a tuning default improved in a later
    release reaches users who never touched that setting, while their own choices stay.
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(value):
        mine, theirs = getattr(value, f.name), getattr(default, f.name)
        if mine == theirs:
            continue
        if dataclasses.is_dataclass(mine) and type(mine) is type(theirs):
            out[f.name] = changed_leaves(mine, theirs)
        else:
            out[f.name] = to_json(mine)
    return out


def to_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


class _Mismatch(ValueError):
    pass


def _convert(value: Any, hint: Any, where: str, problems: list[str]) -> Any:
    """Check `value` against a type hint, building nested dataclasses; raise _Mismatch."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin is Literal:
        if value in typing.get_args(hint):
            return value
        raise _Mismatch(f"{value!r} is not one of {typing.get_args(hint)}")
    if origin in (typing.Union, types.UnionType):
        return _first_fit(value, hint, where, problems)
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list):
            raise _Mismatch(f"expected a list, got {type(value).__name__}")
        item_hint = args[0] if args else Any
        return tuple(_convert(v, item_hint, where, problems) for v in value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise _Mismatch(f"expected an object, got {type(value).__name__}")
        return build_dataclass(hint, value, where, problems)
    return _scalar(value, hint)


def _first_fit(value: Any, union: Any, where: str, problems: list[str]) -> Any:
    """The value as the first type of the union it fits."""
    for option in typing.get_args(union):
        try:
            return _convert(value, option, where, problems)
        except _Mismatch:
            continue
    raise _Mismatch(f"{value!r} does not fit {union}")


# JSON scalars: what each type accepts, and what its error says was expected. JSON has
# one number type; a bool is never a number here, although Python says it is an int.
_SCALARS: dict[Any, tuple[Callable[[Any], bool], str]] = {
    bool: (lambda v: isinstance(v, bool), "true/false"),
    int: (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    float: (lambda v: isinstance(v, int | float) and not isinstance(v, bool), "a number"),
    str: (lambda v: isinstance(v, str), "text"),
}


def _scalar(value: Any, hint: Any) -> Any:
    if hint is type(None):
        if value is None:
            return None
        raise _Mismatch("expected null")
    if hint not in _SCALARS:
        raise _Mismatch(f"unsupported type {hint}")
    accepts, expected = _SCALARS[hint]
    if not accepts(value):
        raise _Mismatch(f"expected {expected}, got {value!r}")
    return float(value) if hint is float else value


def build_dataclass(cls: type[Any], data: dict[str, Any], where: str, problems: list[str]) -> Any:
    """Build `cls` from `data`, keeping the default of every field that is missing or
    invalid (each invalid one is noted in `problems`). Unknown keys are ignored: they
    come from a newer version or from a setting that no longer exists."""
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        path = f"{where}.{f.name}" if where else f.name
        try:
            kwargs[f.name] = _convert(data[f.name], hints[f.name], path, problems)
        except _Mismatch as exc:
            problems.append(f"{path}: {exc}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as exc:
        # Fields valid alone but not together (a range check in __post_init__).
        problems.append(f"{where or cls.__name__}: {exc}")
        return cls()


# --- migrations ----------------------------------------------------------------------

# version N → N+1, applied in order to the raw JSON object.
MIGRATIONS: dict[int, typing.Callable[[dict[str, Any]], dict[str, Any]]] = {}


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
            f"settings were written by a newer Fusecam (format {version}); "
            "settings this version does not know were ignored"
        )
    return data, notes


# --- load / save ---------------------------------------------------------------------


def _keep_bad_file(path: Path) -> Path | None:
    bad = path.with_name(path.name + ".bad")
    try:
        path.replace(bad)
        return bad
    except OSError:
        return None


def load(path: Path | None = None) -> LoadResult:
    """Never raises: problems come back as messages, the state falls back to defaults."""
    path = path or settings_path()
    if not path.exists():
        return LoadResult(AppState())
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the file does not hold a JSON object")
        data, notes = _migrate(data)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        bad = _keep_bad_file(path)
        kept = f" The old file was kept as {bad}." if bad else ""
        return LoadResult(
            AppState(),
            (f"Settings file {path} could not be read ({exc}); using defaults.{kept}",),
        )
    problems: list[str] = []
    data.pop("version", None)
    state = build_dataclass(AppState, data, "", problems)
    messages = list(notes)
    if problems:
        shown = "; ".join(problems[:4]) + (" …" if len(problems) > 4 else "")
        messages.append(f"Some saved settings were invalid and reset to defaults: {shown}")
    return LoadResult(state, tuple(messages))


def save(state: AppState, path: Path | None = None) -> None:
    """Atomic write (temp file + rename) so a crash mid-write never corrupts the file."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": VERSION, **to_json(state)}
    data["engine"] = changed_leaves(state.engine, EngineSettings())
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
