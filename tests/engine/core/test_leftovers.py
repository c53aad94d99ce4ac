"""Temporaries of killed runs are removed by the next writer of the same name; those a
live process still holds, and recordings' recovery copies, are not. The writers are
real processes (the lock is the kernel's, per process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.atomic import AtomicFile, write_bytes_atomic

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock: POSIX only")

WRITER = """
import sys, time
from engine.core.atomic import AtomicFile
part = AtomicFile(sys.argv[1], tag=sys.argv[2])
part.write_bytes(b"half a video")
print(part.temp, flush=True)
time.sleep(600)
"""


def writer(final: Path, tag: str = "part") -> tuple[subprocess.Popen[str], Path]:
    """A process writing `final`'s temporary; returns it once the temporary exists."""
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(final), tag], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, Path(process.stdout.readline().strip())


def killed_writer(final: Path, tag: str = "part") -> Path:
    process, temp = writer(final, tag)
    process.kill()  # kill -9: the temporary stays
    process.wait()
    assert temp.is_file()
    return temp


def test_a_killed_runs_temporary_and_its_audio_companion_go(tmp_path: Path) -> None:
    final = tmp_path / "out.mp4"
    stale = killed_writer(final)
    companion = stale.with_name(f".{stale.stem}.audio-part{stale.suffix}")
    companion.write_bytes(b"muxing")
    other = tmp_path / "other.ab12cd.part.mp4"  # another output's: not this name's
    other.write_bytes(b"x")
    write_bytes_atomic(final, b"done")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.ab12cd.part.mp4", "out.mp4"]


def test_a_live_writers_temporary_is_left_alone(tmp_path: Path) -> None:
    final = tmp_path / "out.png"
    process, temp = writer(final)
    try:
        with AtomicFile(final) as mine:
            mine.write_bytes(b"mine")
            mine.commit()
        assert temp.is_file() and final.read_bytes() == b"mine"
    finally:
        process.kill()
        process.wait()


def test_a_recordings_recovery_copy_is_never_removed(tmp_path: Path) -> None:
    final = tmp_path / "rec.mp4"
    recovery = killed_writer(final, tag="recording")
    with AtomicFile(final, tag="recording") as again:
        again.discard()
    write_bytes_atomic(final, b"another")
    assert recovery.is_file()


def test_a_temporary_rewritten_before_its_commit_stays_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fusecam swap` muxes the audio in by replacing the closed temporary; until the
    rename, a second run writing the same name must still see it as in use."""
    import numpy as np

    from engine.core import leftovers
    from engine.outputs import video_file
    from engine.outputs.video_file import VideoOutput

    seen: list[bool] = []
    real_check = video_file.check_video

    def check(path: Path, fps: float) -> int:
        seen.append(leftovers._held(path))
        return real_check(path, fps)

    def rewrite(temp: Path) -> None:  # as the audio mux does: a new file, renamed over
        copy = temp.with_name(temp.name + ".new")
        copy.write_bytes(temp.read_bytes())
        copy.replace(temp)

    monkeypatch.setattr(video_file, "check_video", check)
    with VideoOutput(tmp_path / "out.mp4", (64, 48), 10.0) as video:
        for _ in range(5):
            video.write(np.zeros((48, 64, 3), np.uint8))
        video.commit(finish=rewrite)
    assert seen == [True]
