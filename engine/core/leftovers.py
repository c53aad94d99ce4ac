"""Temporary files that a run killed outright (kill -9, a power cut, a crash in a native
library) left beside its output, removed by the next run that writes the same name.

A writer holds an exclusive lock (flock) on its temporary from the moment it creates it
until it renames or removes it; the kernel drops the lock when the process dies, however
it dies. So a temporary nobody holds is an earlier run's, and one that is held belongs to
a run still going (two swaps to one folder), which is left alone. Recordings' temporaries
("….recording.mp4") are never removed: after a crash they are the recovery copy.
Where there is no flock (Windows), the removal is tried and an open file refuses it.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path

log = logging.getLogger(__name__)

# The random part of a temporary's name (engine.core.atomic: "out.ab12cd.part.mp4").
_TOKEN = "[0-9a-f]{6}"

if sys.platform != "win32":
    import fcntl

    def _lock(fd: int) -> bool:
        """Take `fd`'s exclusive lock; False when another process holds it."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError:
            return True  # a file system without locks: nothing to tell by
        return True

else:

    def _lock(fd: int) -> bool:
        return True


def hold(fd: int) -> None:
    """Lock the open temporary `fd` for as long as it stays open."""
    _lock(fd)


def _held(path: Path) -> bool:
    """Whether a live process holds `path`'s lock; a file that is gone is not held."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return not _lock(fd)
    finally:
        os.close(fd)  # also releases the lock taken just now


def remove_stale(final: Path, tag: str) -> list[Path]:
    """Remove the temporaries for `final` (tagged `tag`) that no live run holds, and the
    audio-mux companions of those (".out.ab12cd.part.audio-part.mp4"); returns them."""
    stem, suffix = re.escape(final.stem), re.escape(final.suffix)
    own = re.compile(rf"{stem}\.{_TOKEN}\.{re.escape(tag)}{suffix}")
    companion = re.compile(rf"\.({stem}\.{_TOKEN}\.{re.escape(tag)})\.audio-part{suffix}")
    try:
        names = [entry.name for entry in os.scandir(final.parent)]
    except OSError:
        return []
    removed: list[Path] = []
    for name in names:
        path = final.parent / name
        if own.fullmatch(name):
            owner = path
        elif match := companion.fullmatch(name):
            owner = final.parent / f"{match.group(1)}{final.suffix}"
        else:
            continue
        if _held(owner):
            continue
        try:
            path.unlink()
        except OSError:
            continue  # in use (Windows) or not ours to remove
        removed.append(path)
    if removed:
        log.info(
            "removed %d temporary file(s) an earlier run left: %s",
            len(removed),
            ", ".join(p.name for p in removed),
        )
    return removed
