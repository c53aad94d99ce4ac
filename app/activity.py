"""The activity log: one JSON line per run of Fusecam's outputs, kept on this machine.

Each line says when, with which source face (its content hash and name), which outputs
were on (virtual camera, stream, recording, an offline file), where files went, and
whether the visible label was on; every output carries the invisible watermark. The
file (`activity.jsonl`) sits beside the log file (app.logs.log_dir, `$FUSECAM_LOG_DIR`);
the app's Help menu opens and clears it. Nothing in it is ever sent anywhere.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from app.logs import log_dir
from engine.core.settings import EngineSettings
from engine.swap.library import SourceLibrary

ACTIVITY_FILE = "activity.jsonl"
_log = logging.getLogger(__name__)


def activity_path() -> Path:
    return log_dir() / ACTIVITY_FILE


def source_faces(settings: EngineSettings, library: SourceLibrary) -> list[dict[str, str]]:
    """The source faces the settings put on: content hash (the library's key) and name."""
    keys = [settings.swap.source_key, *settings.swap.source_keys]
    faces: list[dict[str, str]] = []
    for key in dict.fromkeys(k for k in keys if k):
        identity = library.get(key)
        faces.append({"hash": key, "name": identity.name if identity is not None else ""})
    return faces


def record(
    command: str,
    sources: Iterable[Mapping[str, str]],
    outputs: Mapping[str, Any],
    files: Iterable[Path | str] = (),
    *,
    label: bool,
    path: Path | None = None,
) -> Path | None:
    """Append one line; returns the file, or None when it could not be written (a
    read-only home must not stop a run: the failure is logged)."""
    target = path or activity_path()
    entry = {
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": command,
        "sources": [dict(s) for s in sources],
        "outputs": dict(outputs),
        "files": [str(Path(f).resolve()) for f in files],
        "label": label,
        "watermark": True,
    }
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
    except OSError as exc:
        _log.warning("activity log %s not written: %s", target, exc)
        return None
    return target


def read(path: Path | None = None) -> list[dict[str, Any]]:
    """Every entry; lines that are not JSON (a hand edit) are skipped."""
    target = path or activity_path()
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    entries = []
    for line in text.splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries


def clear(path: Path | None = None) -> None:
    """Empty the log (the file stays, so an open viewer sees it emptied)."""
    target = path or activity_path()
    if target.exists():
        target.write_text("", encoding="utf-8")
