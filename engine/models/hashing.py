"""SHA-256 of model files, and a stamp beside each verified file so it is hashed only once.

A 550 MB model takes seconds to hash; the stamp (`FILE.verified`: hash, size, mtime) lets
later starts trust the file until its size or modification time changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from engine.core.atomic import write_bytes_atomic
from engine.models.errors import DownloadCancelled

ProgressCallback = Callable[[int, int | None], None]  # (bytes done, total or None)
CancelCheck = Callable[[], bool]

CHUNK_BYTES = 1 << 20


def sha256_file(
    path: Path,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
) -> str:
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            if cancel is not None and cancel():
                raise DownloadCancelled(f"hashing {path.name} was cancelled")
            digest.update(chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
    return digest.hexdigest()


def stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def write_stamp(path: Path, sha256: str) -> None:
    """Record that `path` hashed to `sha256`. A stamp is a cache: when it cannot be
    written (a full disk), the file is only hashed again next time."""
    stat = path.stat()
    record = {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    with contextlib.suppress(OSError):
        write_bytes_atomic(stamp_path(path), json.dumps(record).encode("utf-8"))


def stamp_matches(path: Path, sha256: str) -> bool:
    """True when `path` was verified against `sha256` and has not changed since."""
    try:
        record = json.loads(stamp_path(path).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return bool(
        isinstance(record, dict)
        and record.get("sha256") == sha256
        and record.get("size") == stat.st_size
        and record.get("mtime_ns") == stat.st_mtime_ns
    )


def clear_stamp(path: Path) -> None:
    stamp_path(path).unlink(missing_ok=True)
