"""The output delay line: frames leave `delay_ms` after capture, in order, none lost."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.outputs.delay import MAX_HELD, DelayLine
from engine.outputs.output_set import OutputConfig, OutputSet, RecordConfig
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from tests.engine.stages.passthrough import PassThrough


class Arrivals:
    """A delay-line listener noting what arrived, when, and on which thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: list[tuple[FramePacket, int, str]] = []

    def __call__(self, packet: FramePacket) -> None:
        with self.lock:
            self.items.append((packet, time.monotonic_ns(), threading.current_thread().name))

    def ids(self) -> list[int]:
        with self.lock:
            return [p.frame_id for p, _, _ in self.items]

    def wait_count(self, count: int, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.items) >= count:
                    return True
            time.sleep(0.01)
        return False


@pytest.fixture
def live() -> Iterator[LiveSession]:
    """A real engine (pass-through) fed by the demo source at 160x120, 30 fps."""
    session = LiveSession(Engine([PassThrough()]), DemoSource(size=(160, 120)))
    yield session
    session.stop()


def test_frames_leave_delay_after_capture_in_order(live: LiveSession) -> None:
    delay_ms = 150
    line = DelayLine(live.engine, delay_ms)
    arrivals = Arrivals()
    line.add_listener(arrivals)
    line.start()
    live.start()
    assert arrivals.wait_count(10)
    live.stop()
    assert line.stop()
    published = live.engine.frames_published
    items = list(arrivals.items)
    # Every frame the engine published came out (the held tail is handed on at stop) ...
    assert [p.frame_id for p, _, _ in items] == sorted({p.frame_id for p, _, _ in items})
    assert len(items) == published
    # ... and none before its capture time + delay, except the tail flushed at stop.
    stop_ns = max(t for _, t, _ in items)
    timed = [(p, t) for p, t, _ in items if t < stop_ns - 50_000_000]
    assert len(timed) >= 5
    for packet, left_ns in timed:
        assert left_ns >= packet.capture_ns + delay_ms * 1_000_000
    assert line.published.read()[1] is items[-1][0]


def test_zero_delay_republishes_inline_on_engine_thread(live: LiveSession) -> None:
    line = DelayLine(live.engine, 0)
    arrivals = Arrivals()
    line.add_listener(arrivals)
    line.start()
    live.start()
    assert arrivals.wait_count(5)
    live.stop()
    line.stop()
    assert {thread for _, _, thread in arrivals.items} == {"engine"}
    assert len(arrivals.items) == live.engine.frames_published
    assert line.late == 0 and line.held == 0


def test_delay_changes_live_without_reordering(live: LiveSession) -> None:
    line = DelayLine(live.engine, 0)
    arrivals = Arrivals()
    line.add_listener(arrivals)
    line.start()
    live.start()
    assert arrivals.wait_count(3)
    line.set_delay_ms(300)
    before = len(arrivals.items)
    assert live.wait_frames(live.engine.frames_published + 3, timeout=10)
    assert line.held > 0  # new frames wait now
    line.set_delay_ms(0)
    assert arrivals.wait_count(before + 6)
    live.stop()
    line.stop()
    ids = arrivals.ids()
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    assert len(ids) == live.engine.frames_published


def test_backlog_is_bounded() -> None:
    engine = Engine([PassThrough()])
    line = DelayLine(engine, 1000)
    line.start()  # subscribes; the worker holds everything for a second
    frame = np.zeros((8, 8, 3), np.uint8)
    try:
        for i in range(MAX_HELD + 60):
            engine.publish(FramePacket(i, time.monotonic_ns(), frame))
        assert line.held == MAX_HELD
        assert line.dropped == 60
    finally:
        line.stop()


def test_late_frames_are_counted_not_held() -> None:
    engine = Engine([PassThrough()])
    line = DelayLine(engine, 20)
    arrivals = Arrivals()
    line.add_listener(arrivals)
    line.start()
    frame = np.zeros((8, 8, 3), np.uint8)
    try:
        # Captured 100 ms ago: processing already took longer than the delay.
        engine.publish(FramePacket(0, time.monotonic_ns() - 100_000_000, frame))
        assert arrivals.wait_count(1, timeout=5)
        assert line.late == 1
    finally:
        line.stop()


@pytest.mark.parametrize("bad", [-1, 1001, 5000])
def test_delay_out_of_range_is_refused(bad: int) -> None:
    engine = Engine([PassThrough()])
    with pytest.raises(ValueError, match=r"0\.\.1000"):
        DelayLine(engine, bad)
    with pytest.raises(ValueError, match=r"0\.\.1000"):
        OutputConfig(delay_ms=bad)
    line = DelayLine(engine, 0)
    with pytest.raises(ValueError, match=r"0\.\.1000"):
        line.set_delay_ms(bad)


def test_recording_through_delay_keeps_every_frame(live: LiveSession, tmp_path: Path) -> None:
    """The recorder reads the delayed timeline; stopping hands it the held tail."""
    outputs = OutputSet(live.engine, input_size=(160, 120), input_fps=30.0, delay_ms=200)
    path = outputs.start_recording(RecordConfig(tmp_path / "delayed.mkv"))
    recorder = outputs.recorder
    assert recorder is not None
    outputs.start()
    live.start()
    assert live.wait_frames(20, timeout=10)
    live.stop()
    assert outputs.stop()
    assert recorder.frames == live.engine.frames_published
    assert path.is_file()
