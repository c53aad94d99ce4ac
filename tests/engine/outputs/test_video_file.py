"""Video files appear under their name only complete and playable (engine.outputs.video_file).

A full disk is simulated here by a writer whose FFmpeg mux raises ENOSPC, as PyAV does
on a real one (the CLI tests use a real tmpfs where the machine allows it)."""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.outputs.recorder import Recorder, RecorderError
from engine.outputs.video_file import (
    FORMATS,
    VideoFileWriter,
    VideoOutput,
    VideoWriteError,
    check_video,
)
from engine.runtime.pipeline import Engine
from tests.engine.outputs.test_recorder import FPS, publish_frames
from tests.engine.stages.passthrough import PassThrough

CountFrames = Callable[[Path], tuple[int, tuple[int, int] | None]]


def frames(count: int, size: tuple[int, int] = (64, 48)) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.integers(0, 255, (size[1], size[0], 3), np.uint8) for _ in range(count)]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".part" in p.name or ".recording" in p.name)


@pytest.fixture
def disk_full_after(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Make every writer's mux fail with ENOSPC once `n` frames were written."""

    def arm(n: int) -> None:
        real = VideoFileWriter.write

        def write(self: VideoFileWriter, frame: Any) -> None:
            if self.frames >= n:
                error = OSError(errno.ENOSPC, "No space left on device")
                raise VideoWriteError(f"{self.name}: writing frame {self.frames + 1} failed "
                                      f"(disk full)") from error  # fmt: skip
            real(self, frame)

        monkeypatch.setattr(VideoFileWriter, "write", write)

    return arm


@pytest.mark.parametrize("suffix", sorted(FORMATS))
def test_every_format_round_trips_and_appears_only_on_commit(
    tmp_path: Path, suffix: str, count_frames: CountFrames
) -> None:
    path = tmp_path / f"out{suffix}"
    with VideoOutput(path, (64, 48), 30.0) as video:
        for frame in frames(13):
            video.write(frame)
        assert not path.exists() and len(leftovers(tmp_path)) == 1
        assert video.commit() == 13
    assert count_frames(path) == (13, (64, 48))
    assert leftovers(tmp_path) == []


def test_odd_sizes_lose_a_row_and_a_column_in_4_2_0_formats(
    tmp_path: Path, count_frames: CountFrames
) -> None:
    for suffix, size in ((".mp4", (64, 48)), (".mkv", (65, 49))):
        path = tmp_path / f"odd{suffix}"
        with VideoOutput(path, (65, 49), 30.0) as video:
            for frame in frames(3, (65, 49)):
                video.write(frame)
            video.commit()
        assert count_frames(path) == (3, size)


def test_an_exception_before_commit_removes_the_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out.mp4"
    with pytest.raises(KeyboardInterrupt), VideoOutput(path, (64, 48), 30.0) as video:
        video.write(frames(1)[0])
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_fails_the_commit_and_keeps_the_previous_file(
    tmp_path: Path, disk_full_after: Callable[[int], None]
) -> None:
    path = tmp_path / "out.mp4"
    path.write_bytes(b"the user's previous file")
    disk_full_after(5)
    with (
        pytest.raises(VideoWriteError, match="disk full"),
        VideoOutput(path, (64, 48), 30.0) as video,
    ):
        for frame in frames(10):
            video.write(frame)
    assert path.read_bytes() == b"the user's previous file"
    assert leftovers(tmp_path) == []


def test_a_file_that_does_not_check_out_is_not_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check after writing counts the frames back: one missing fails the commit."""
    path = tmp_path / "out.mkv"
    video = VideoOutput(path, (64, 48), 30.0)
    for frame in frames(4):
        video.write(frame)
    video.writer.frames += 1  # as if a frame had been lost on its way to the file
    with pytest.raises(VideoWriteError, match="4 of 5 frames are in the file"):
        video.commit()
    assert not path.exists() and leftovers(tmp_path) == []


def test_the_check_refuses_a_file_that_does_not_play(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 258)  # the 258-byte .mp4
    with pytest.raises(VideoWriteError, match="does not play"):
        check_video(bad, 30.0)


def test_a_recorder_on_a_full_disk_stops_and_keeps_what_plays(
    tmp_path: Path, disk_full_after: Callable[[int], None], count_frames: CountFrames
) -> None:
    errors: list[BaseException] = []
    engine = Engine([PassThrough()])
    path = tmp_path / "rec.mp4"
    recorder = Recorder(engine, path, fps=FPS, on_error=lambda _w, e: errors.append(e))
    disk_full_after(30)
    recorder.start()
    publish_frames(engine, 40)
    recorder.stop(timeout=10)
    assert isinstance(recorder.error, RecorderError) and errors == [recorder.error]
    message = str(recorder.error)
    assert "disk full" in message and "the 30 frames before it are in" in message
    assert not path.exists() and not recorder.finished
    (kept,) = leftovers(tmp_path)
    assert kept in message and count_frames(tmp_path / kept)[0] == 30


def test_a_recording_is_playable_while_it_is_written(
    tmp_path: Path, count_frames: CountFrames
) -> None:
    """What a crash at this moment would leave: fragmented MP4 plays without its end."""
    engine = Engine([PassThrough()])
    recorder = Recorder(engine, tmp_path / "rec.mp4", fps=FPS)
    recorder.start()
    publish_frames(engine, 30)  # within the recorder's backlog: none dropped
    try:
        deadline = time.monotonic() + 10
        while recorder.frames < 30 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert recorder.temp_path is not None
        temp = recorder.temp_path
        assert count_frames(temp)[0] >= 12  # every completed fragment (12-frame GOPs)
    finally:
        assert recorder.stop(timeout=10)
    assert recorder.finished and count_frames(tmp_path / "rec.mp4")[0] == 30
