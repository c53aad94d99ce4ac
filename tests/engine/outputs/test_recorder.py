"""The recorder writes every published frame to a file OpenCV reads back."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.outputs.recorder import Recorder, RecorderError
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from tests.engine.stages.passthrough import PassThrough

CountFrames = Callable[[Path], tuple[int, tuple[int, int] | None]]


FPS = 30.0
FRAME_NS = round(1e9 / FPS)


def publish_frames(
    engine: Engine,
    count: int,
    *,
    size: tuple[int, int] = (64, 48),
    first_id: int = 0,
    skip: frozenset[int] = frozenset(),
    base_ns: int | None = None,
) -> int:
    """Publish frames `first_id`.. on this thread, as the engine thread would.

    Capture stamps are exactly 1/FPS apart (a perfectly paced camera), because the
    recorder places frames on the capture clock. Ids in `skip` are captured but never
    published (frames the engine dropped). Returns the clock base, to continue from.
    """
    width, height = size
    base = time.monotonic_ns() - 1_000 * FRAME_NS if base_ns is None else base_ns
    for i in range(first_id, first_id + count):
        if i in skip:
            continue
        frame = np.full((height, width, 3), (i * 7) % 256, np.uint8)
        frame.flags.writeable = False
        engine.publish(engine.process(FramePacket(i, base + i * FRAME_NS, frame)))
    return base


@pytest.mark.parametrize("suffix", [".mp4", ".avi", ".mkv"])
def test_recorder_writes_exactly_the_published_frames(
    tmp_path: Path, suffix: str, count_frames: CountFrames
) -> None:
    engine = Engine([PassThrough()])
    path = tmp_path / f"out{suffix}"
    recorder = Recorder(engine, path, fps=FPS)
    recorder.start()
    publish_frames(engine, 17)
    assert recorder.stop(timeout=10)
    assert recorder.error is None
    assert (recorder.frames, recorder.dropped) == (17, 0)
    assert count_frames(path) == (17, (64, 48))


def test_recorder_in_a_live_session_with_a_lockstep_source(
    tmp_path: Path, count_frames: CountFrames
) -> None:
    source = DemoSource(size=(96, 54), fps=FPS, lockstep=True, max_frames=25)
    engine = Engine([PassThrough()])
    path = tmp_path / "live.mp4"
    recorder = Recorder(engine, path, fps=FPS)
    session = LiveSession(engine, source, [recorder])
    session.start()
    try:
        assert session.wait_source_drained(timeout=20)
    finally:
        assert session.stop(timeout=10)
    assert engine.frames_published == 25
    assert (recorder.frames, recorder.dropped, recorder.error) == (25, 0, None)
    # The file follows the capture clock: a frame the scheduler delayed by over half a
    # frame time is held (or skipped), so allow one slot either way around 25.
    assert count_frames(path) == (recorder.written, (96, 54))
    assert abs(recorder.written - 25) <= 2


def test_side_by_side_doubles_the_width(tmp_path: Path, count_frames: CountFrames) -> None:
    engine = Engine([PassThrough()])
    path = tmp_path / "sbs.mkv"
    recorder = Recorder(engine, path, fps=FPS, side_by_side=True)
    recorder.start()
    publish_frames(engine, 5, size=(64, 48))
    assert recorder.stop(timeout=10)
    assert count_frames(path) == (5, (128, 48))


def test_frames_of_another_size_are_fitted_to_the_first(
    tmp_path: Path, count_frames: CountFrames
) -> None:
    engine = Engine([PassThrough()])
    path = tmp_path / "mixed.mkv"
    recorder = Recorder(engine, path, fps=FPS)
    recorder.start()
    base = publish_frames(engine, 3, size=(64, 48))
    publish_frames(engine, 3, size=(32, 24), first_id=3, base_ns=base)
    assert recorder.stop(timeout=10)
    assert recorder.error is None
    assert count_frames(path) == (6, (64, 48))


def test_a_recorder_stopped_before_any_frame_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "empty.mp4"
    recorder = Recorder(Engine([PassThrough()]), path, fps=FPS)
    recorder.start()
    assert recorder.stop(timeout=5)
    assert recorder.error is None
    assert not path.exists()


def test_unsupported_extension_raises_recorder_error(tmp_path: Path) -> None:
    path = tmp_path / "out.xyz"
    with pytest.raises(RecorderError, match=r"unsupported video format '\.xyz'") as info:
        Recorder(Engine([PassThrough()]), path, fps=FPS)
    assert str(path) in str(info.value)


def test_unwritable_path_raises_recorder_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("a file where a folder should be")
    path = blocker / "out.mp4"
    with pytest.raises(RecorderError, match="cannot create folder") as info:
        Recorder(Engine([PassThrough()]), path, fps=FPS)
    assert str(path) in str(info.value)


def test_missing_folders_are_created(tmp_path: Path, count_frames: CountFrames) -> None:
    path = tmp_path / "new" / "deeper" / "out.avi"
    engine = Engine([PassThrough()])
    recorder = Recorder(engine, path, fps=FPS)
    recorder.start()
    publish_frames(engine, 2)
    assert recorder.stop(timeout=10)
    assert count_frames(path)[0] == 2


def test_starting_a_recorder_twice_does_not_write_frames_twice(
    tmp_path: Path, count_frames: CountFrames
) -> None:
    engine = Engine([PassThrough()])
    path = tmp_path / "once.mkv"
    recorder = Recorder(engine, path, fps=FPS)
    recorder.start()
    recorder.start()
    publish_frames(engine, 4)
    assert recorder.stop(timeout=10)
    assert recorder.frames == 4
    assert count_frames(path)[0] == 4


def test_frames_the_engine_dropped_are_held_so_the_file_keeps_time(
    tmp_path: Path, count_frames: CountFrames
) -> None:
    engine = Engine([PassThrough()])
    path = tmp_path / "gaps.mkv"
    recorder = Recorder(engine, path, fps=FPS)
    recorder.start()
    publish_frames(engine, 10, skip=frozenset({3, 4, 7}))
    assert recorder.stop(timeout=10)
    assert recorder.frames == 7
    # 10 capture slots: the 3 dropped ones repeat the previous picture.
    assert (recorder.written, recorder.repeated) == (10, 3)
    assert count_frames(path) == (10, (64, 48))
