"""The engine: stage order, timings, failing stages, settings swaps, mirror, stats, listeners."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import ClassVar

import cv2
import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, OutputSettings
from engine.core.stats import FrameStats, Summary
from engine.runtime.pipeline import Engine, StageError
from engine.stages.base import Stage
from tests.engine.stages.passthrough import PassThrough

# Test stages: small real implementations of the Stage contract that record what they saw.


class Brighten(Stage):
    """Writes a new output array (never touches the input), like a real pixel stage."""

    name: ClassVar[str] = "brighten"

    def __init__(self, amount: int = 10) -> None:
        self.amount = amount

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        packet.output = cv2.add(packet.result, np.full_like(packet.result, self.amount))
        return packet


class Recording(Stage):
    """Appends its label to the packet and remembers the settings object of each frame."""

    name: ClassVar[str] = "recording"

    def __init__(self, label: str = "recording") -> None:
        self.label = label
        self.seen: dict[int, EngineSettings] = {}
        self.threads: set[str] = set()
        self.ran: list[str] = []  # labels in the order they ran; stages may share one

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        self.ran.append(self.label)
        self.seen[packet.frame_id] = settings
        self.threads.add(threading.current_thread().name)
        return packet


def _named(label: str) -> Recording:
    """A Recording stage whose timing key is `label` (stage names are class attributes)."""
    cls = type(f"Recording_{label}", (Recording,), {"name": label})
    stage = cls(label)
    assert isinstance(stage, Recording)
    return stage


class FailsOn(Stage):
    name: ClassVar[str] = "faulty"

    def __init__(self, frame_ids: set[int]) -> None:
        self.frame_ids = frame_ids

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if packet.frame_id in self.frame_ids:
            raise ValueError(f"cannot handle frame {packet.frame_id}")
        return packet


class Sleeps(Stage):
    """Takes at least `ms` per frame (a lower bound for latency checks, not a speed test)."""

    name: ClassVar[str] = "sleeps"

    def __init__(self, ms: float) -> None:
        self.ms = ms

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        time.sleep(self.ms / 1000)
        return packet


def make_frame(value: int = 100, size: tuple[int, int] = (32, 24)) -> np.ndarray:
    frame = np.full((size[1], size[0], 3), value, np.uint8)
    frame.flags.writeable = False
    return frame


def make_packet(frame_id: int, value: int = 100) -> FramePacket:
    return FramePacket(frame_id, time.monotonic_ns(), make_frame(value))


def run_frames(engine: Engine, packets: list[FramePacket]) -> list[FramePacket]:
    """Feed packets one at a time through the running engine thread; return what it published."""
    published: list[FramePacket] = []
    done = threading.Condition()

    # Listeners run after the buffer swap and the stats update, so waiting on one (added
    # last, called last) means the frame is fully published.
    def listener(packet: FramePacket) -> None:
        with done:
            published.append(packet)
            done.notify_all()

    engine.add_listener(listener)
    try:
        for count, packet in enumerate(packets, start=1):
            engine.input.put(packet)
            deadline = time.monotonic() + 5
            with done:
                while len(published) < count and (left := deadline - time.monotonic()) > 0:
                    done.wait(left)
            assert len(published) >= count, f"frame {packet.frame_id} was not published"
    finally:
        engine.remove_listener(listener)
    return published


@pytest.fixture
def running() -> list[Engine]:
    """Engines appended here are stopped after the test, even when it fails."""
    engines: list[Engine] = []
    yield engines
    for engine in engines:
        assert engine.stop(5), "engine thread did not stop"


# --- order and timings ------------------------------------------------------------------------


def test_stages_run_in_order_with_per_stage_timings() -> None:
    a, b, c = _named("a"), _named("b"), _named("c")
    b.ran = c.ran = a.ran
    engine = Engine([a, b, c])
    packet = engine.process(make_packet(0))
    assert a.ran == ["a", "b", "c"]
    assert list(packet.timings_ms) == ["a", "b", "c"]
    assert all(ms >= 0.0 for ms in packet.timings_ms.values())
    assert packet.processing_ms >= sum(packet.timings_ms.values()) * 0.99


def test_stage_timing_measures_the_stage() -> None:
    engine = Engine([PassThrough(), Sleeps(ms=20)])
    packet = engine.process(make_packet(0))
    assert packet.timings_ms["sleeps"] >= 19.0  # sleep guarantees at least this
    assert packet.timings_ms["passthrough"] < packet.timings_ms["sleeps"]


def test_engine_thread_processes_and_publishes_read_only_results(running: list[Engine]) -> None:
    stage = Recording()
    engine = Engine([Brighten(5), stage])
    running.append(engine)
    engine.start()
    published = run_frames(engine, [make_packet(i, value=100) for i in range(3)])
    assert [p.frame_id for p in published] == [0, 1, 2]
    for packet in published:
        assert int(packet.result[0, 0, 0]) == 105
        assert int(packet.frame[0, 0, 0]) == 100  # the captured frame is untouched
        assert not packet.result.flags.writeable
        assert packet.published_ns >= packet.capture_ns
    assert stage.threads == {"engine"}
    assert engine.frames_published == 3
    version, front = engine.published.read()
    assert version == 3 and front is published[-1]


# --- failures ---------------------------------------------------------------------------------


def test_failing_stage_passes_the_frame_through_and_the_loop_goes_on(
    running: list[Engine],
) -> None:
    errors: list[tuple[str, BaseException]] = []
    after = _named("after")
    engine = Engine(
        [Brighten(10), FailsOn({2}), after], on_error=lambda where, exc: errors.append((where, exc))
    )
    running.append(engine)
    engine.start()
    published = run_frames(engine, [make_packet(i) for i in range(5)])

    assert [p.frame_id for p in published] == [0, 1, 2, 3, 4]
    failed = published[2]
    assert failed.output is None
    assert failed.result is failed.frame  # passed through unchanged
    assert int(failed.result[0, 0, 0]) == 100
    assert "cannot handle frame 2" in (failed.error or "")
    assert 2 not in after.seen  # stages after the failing one were skipped for that frame
    assert "faulty" in failed.timings_ms  # the failed stage's time is still recorded
    for packet in (published[0], published[1], published[3], published[4]):
        assert int(packet.result[0, 0, 0]) == 110, packet.frame_id
        assert packet.error is None
    assert set(after.seen) == {0, 1, 3, 4}

    assert engine.stage_errors == 1
    assert engine.error is None and engine.alive
    assert len(errors) == 1
    where, exc = errors[0]
    assert where == "stage:faulty"
    assert isinstance(exc, StageError)
    assert "faulty" in str(exc) and "cannot handle frame 2" in str(exc)


def test_repeated_stage_errors_are_counted_but_reported_at_most_once_a_second() -> None:
    errors: list[str] = []
    engine = Engine([FailsOn(set(range(10)))], on_error=lambda where, exc: errors.append(where))
    for i in range(10):
        assert engine.process(make_packet(i)).output is None
    assert engine.stage_errors == 10
    assert errors == ["stage:faulty"]


# --- settings ---------------------------------------------------------------------------------


def test_settings_swap_takes_effect_on_the_next_frame(running: list[Engine]) -> None:
    first = EngineSettings()
    second = dataclasses.replace(first, output=OutputSettings(debug_overlay=True))
    stage = Recording()
    engine = Engine([stage], first)
    running.append(engine)
    engine.start()
    run_frames(engine, [make_packet(0)])
    engine.set_settings(second)
    assert engine.settings is second
    run_frames(engine, [make_packet(1)])
    assert stage.seen[0] is first
    assert stage.seen[1] is second


def test_settings_changed_mid_frame_do_not_reach_that_frame() -> None:
    """The engine reads the settings reference once per frame: no half-applied settings."""
    first = EngineSettings()
    second = dataclasses.replace(first, output=OutputSettings(debug_overlay=True))
    before, after = _named("before"), _named("after")

    class Changer(Stage):
        name: ClassVar[str] = "changer"

        def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
            engine.set_settings(second)
            return packet

    engine = Engine([before, Changer(), after], first)
    engine.process(make_packet(0))
    assert before.seen[0] is first and after.seen[0] is first
    engine.process(make_packet(1))
    assert before.seen[1] is second and after.seen[1] is second


def test_stage_list_swap_takes_effect_on_the_next_frame() -> None:
    a, b = _named("a"), _named("b")
    engine = Engine([a])
    engine.process(make_packet(0))
    engine.set_stages([b])
    assert engine.stages == (b,)
    engine.process(make_packet(1))
    assert set(a.seen) == {0} and set(b.seen) == {1}


def test_mirror_flips_the_frame_horizontally() -> None:
    frame = np.zeros((4, 6, 3), np.uint8)
    frame[:, :2] = 255  # bright left edge
    frame.flags.writeable = False
    mirrored = EngineSettings(output=OutputSettings(mirror=True))
    packet = Engine([PassThrough()], mirrored).process(FramePacket(0, 0, frame))
    assert np.array_equal(packet.result, frame[:, ::-1])
    assert packet.result[0, -1, 0] == 255 and packet.result[0, 0, 0] == 0
    assert frame[0, 0, 0] == 255  # the captured array itself is not modified
    plain = Engine([PassThrough()]).process(FramePacket(0, 0, frame))
    assert np.array_equal(plain.result, frame)


# --- stats ------------------------------------------------------------------------------------


def test_stats_snapshot_from_the_running_engine_is_plausible(running: list[Engine]) -> None:
    engine = Engine([Sleeps(ms=5)])
    running.append(engine)
    engine.start()
    run_frames(engine, [make_packet(i) for i in range(12)])
    snap = engine.stats.snapshot()
    assert snap.frames == 12
    assert snap.dropped == 0
    assert set(snap.stages) == {"sleeps"}
    for summary in (snap.stages["sleeps"], snap.processing, snap.end_to_end):
        assert 0.0 <= summary.p50_ms <= summary.p95_ms <= summary.max_ms
    # Lower bounds the sleeping stage guarantees; latency includes processing.
    assert snap.stages["sleeps"].p50_ms >= 4.5
    assert snap.processing.p50_ms >= snap.stages["sleeps"].p50_ms * 0.99
    assert snap.end_to_end.p50_ms >= snap.processing.p50_ms * 0.99
    assert snap.end_to_end.max_ms < 5000  # captured and published in this test
    # Frames at least 5 ms apart cannot be published faster than 200 fps.
    assert 0.0 < snap.fps <= 200.0


def test_dropped_frames_reach_the_stats() -> None:
    engine = Engine([PassThrough()])
    for i in range(4):
        engine.input.put(make_packet(i))
    packet = engine.input.get(timeout=0)
    assert packet is not None and packet.frame_id == 3
    engine.publish(engine.process(packet))
    assert engine.stats.snapshot().dropped == 3


def _published(frame_id: int, published_ns: int, latency_ms: float) -> FramePacket:
    packet = FramePacket(frame_id, published_ns - int(latency_ms * 1e6), make_frame())
    packet.published_ns = published_ns
    packet.timings_ms["stage"] = float(frame_id)
    return packet


def test_frame_stats_fps_and_latency_come_from_the_packet_stamps() -> None:
    stats = FrameStats(window=50)
    now = time.monotonic_ns()
    for i in range(11):  # 11 frames 10 ms apart: exactly 100 fps, 5 ms latency each
        stats.record(_published(i, now - (10 - i) * 10_000_000, 5.0), processing_ms=2.0)
    snap = stats.snapshot()
    assert snap.frames == 11
    assert snap.fps == pytest.approx(100.0)
    assert snap.end_to_end == Summary(5.0, 5.0, 5.0)
    assert snap.processing == Summary(2.0, 2.0, 2.0)
    assert snap.stages["stage"].max_ms == 10.0


def test_frame_stats_report_zero_fps_when_the_engine_stalls() -> None:
    stats = FrameStats()
    stale = time.monotonic_ns() - 3_000_000_000
    for i in range(5):
        stats.record(_published(i, stale + i * 10_000_000, 1.0), processing_ms=1.0)
    assert stats.snapshot().fps == 0.0


def test_frame_stats_window_and_reset() -> None:
    stats = FrameStats(window=4)
    now = time.monotonic_ns()
    for i in range(10):
        stats.record(_published(i, now - (10 - i) * 1_000_000, float(i)), processing_ms=float(i))
    snap = stats.snapshot()
    assert snap.frames == 10
    assert snap.processing.max_ms == 9.0 and snap.processing.p50_ms == pytest.approx(7.5)
    stats.reset()
    empty = stats.snapshot()
    assert empty.frames == 0 and empty.stages == {} and empty.processing == Summary(0, 0, 0)


def test_summary_percentiles() -> None:
    summary = Summary.of([float(v) for v in range(1, 101)])
    assert summary.p50_ms == pytest.approx(50.5)
    assert summary.p95_ms == pytest.approx(95.05)
    assert summary.max_ms == 100.0
    assert summary.as_dict() == {"p50_ms": 50.5, "p95_ms": 95.05, "max_ms": 100.0}
    assert Summary.of([]) == Summary(0.0, 0.0, 0.0)


# --- listeners and restart --------------------------------------------------------------------


def test_listeners_are_called_on_the_engine_thread_and_a_failing_one_is_contained(
    running: list[Engine],
) -> None:
    calls: list[tuple[int, str]] = []

    def listener(packet: FramePacket) -> None:
        calls.append((packet.frame_id, threading.current_thread().name))

    def broken(packet: FramePacket) -> None:
        raise RuntimeError("listener bug")

    engine = Engine([PassThrough()])
    running.append(engine)
    engine.add_listener(broken)
    engine.add_listener(listener)
    engine.start()
    run_frames(engine, [make_packet(i) for i in range(3)])
    assert calls == [(0, "engine"), (1, "engine"), (2, "engine")]
    engine.remove_listener(listener)
    engine.remove_listener(listener)  # removing twice is harmless
    run_frames(engine, [make_packet(3)])
    assert len(calls) == 3
    assert engine.error is None and engine.alive


def test_engine_restarts_after_stop(running: list[Engine]) -> None:
    engine = Engine([PassThrough()])
    engine.start()
    run_frames(engine, [make_packet(0)])
    assert engine.stop(5)
    closed_by_stop = engine.input.closed
    assert closed_by_stop
    running.append(engine)
    engine.start()
    assert not engine.input.closed
    run_frames(engine, [make_packet(1)])
    assert engine.frames_published == 2


def test_test_stages_follow_the_stage_contract() -> None:
    for stage in (Brighten(), Recording(), FailsOn(set()), Sleeps(1), PassThrough()):
        assert isinstance(stage, Stage)


class InterruptedInsideAnExtension(Stage):
    """What numba does when a signal handler raises inside its callback into Python: the
    interrupt comes out as the cause of a SystemError."""

    name: ClassVar[str] = "wrapped"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        try:
            raise KeyboardInterrupt("SIGTERM")
        except KeyboardInterrupt as interrupt:
            raise SystemError("returned a result with an exception set") from interrupt


def test_an_interrupt_an_extension_wrapped_stops_the_run_instead_of_failing_the_stage() -> None:
    engine = Engine([InterruptedInsideAnExtension()])
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        engine.process(make_packet(0))
    assert engine.stage_errors == 0
