"""Files that appear under their final name only when complete, and outputs that never
overwrite an input.

Everything the product writes (images, videos, recordings, settings, registries) goes
to a temporary file in the destination's folder — same file system, so the final
`os.replace` is atomic — and is renamed into place only after it was written, flushed to
disk and checked. A failure or an interruption leaves the final name as it was (absent,
or the user's previous file) and removes the temporary, unless the caller keeps it on
purpose (a crash-safe recording is its own recovery copy).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from engine.core.leftovers import hold, remove_stale


class OutputPathError(OSError):
    """An output path that cannot be used: it is a folder, or it is one of the inputs."""


def describe_os_error(exc: OSError) -> str:
    """A short reason for the user ("disk full", "Permission denied")."""
    if exc.errno == errno.ENOSPC:
        return "disk full"
    return exc.strerror or str(exc)


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: symlinks resolved, hard links by inode."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet): only the resolved names can collide
        return a.resolve() == b.resolve()


def check_output_path(output: Path, inputs: Iterable[tuple[str, Path]]) -> None:
    """Refuse, before anything is opened, an output that is a folder or that resolves
    to one of the `(what, path)` inputs (through symlinks or hard links): writing it
    would destroy the input it is made from."""
    if output.is_dir():
        raise OutputPathError(f"{output}: is a folder; give a file name to write")
    for what, path in inputs:
        if same_file(output, path):
            raise OutputPathError(
                f"{output}: is the {what} ({path}); writing it would destroy the input. "
                "Choose another output name"
            )


def _sync_folder(folder: Path) -> None:
    """Make a rename durable (POSIX: the folder entry is data too)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class AtomicFile:
    """A temporary file beside `final`, renamed over it by `commit()`.

    Temporaries of earlier runs that were killed before they could clean up are removed
    first (engine.core.leftovers); this one is held locked until it is committed or
    discarded, so a later run can tell it from those.

    The temporary is created exclusively (never another file's) with the permissions a
    plain `open` would give, or `mode` (0o600: a file holding a secret is the owner's
    alone from its first byte, and keeps that mode under the final name). As a context
    manager it is discarded unless committed, so
    an exception or Ctrl+C between opening and committing leaves nothing behind.
    """

    def __init__(self, final: str | Path, *, tag: str = "part", mode: int = 0o666) -> None:
        self.final = Path(final)
        self.mode = mode
        self.committed = False
        if self.final.is_dir():
            raise OutputPathError(f"{self.final}: is a folder; give a file name to write")
        folder = self.final.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputPathError(
                f"{self.final}: cannot create folder ({describe_os_error(exc)})"
            ) from exc
        if tag == "part":  # never a recording's: that is a crash's recovery copy
            remove_stale(self.final, tag)
        self._lock: int | None = None
        self.temp = self._create(folder, tag)

    def _create(self, folder: Path, tag: str) -> Path:
        # "out.x7k2.part.mp4", "rec.x7k2.recording.mp4": the extension stays last, so
        # tools that go by it (FFmpeg picking a container, a player opening the copy a
        # crash left) see the right type.
        stem, suffix = self.final.stem, self.final.suffix
        for _ in range(100):
            temp = folder / f"{stem}.{secrets.token_hex(3)}.{tag}{suffix}"
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, self.mode)
            except FileExistsError:
                continue
            except OSError as exc:
                raise OutputPathError(
                    f"{self.final}: cannot write ({describe_os_error(exc)})"
                ) from exc
            hold(fd)
            self._lock = fd  # kept open: the lock lives as long as the descriptor
            return temp
        raise OutputPathError(f"{self.final}: no free temporary name in {folder}")

    def write_bytes(self, data: bytes) -> None:
        """Write all of `data` to the temporary and flush it to disk."""
        with self.temp.open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())

    def commit(self) -> Path:
        """Flush the temporary to disk and rename it to the final name."""
        fd = os.open(self.temp, os.O_RDONLY)
        try:
            os.fsync(fd)  # delayed allocation: a full disk can surface only here
        finally:
            os.close(fd)
        os.replace(self.temp, self.final)
        self.committed = True
        self._release()
        _sync_folder(self.final.parent)
        return self.final

    def discard(self) -> None:
        if not self.committed:
            self.temp.unlink(missing_ok=True)
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock)
            self._lock = None

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.discard()


def write_bytes_atomic(path: str | Path, data: bytes, *, mode: int = 0o666) -> Path:
    """`data` under `path`, all or nothing. Raises OSError (ENOSPC, EACCES, …)."""
    with AtomicFile(path, mode=mode) as target:
        target.write_bytes(data)
        return target.commit()
