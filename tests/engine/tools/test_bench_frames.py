"""The bench's per-frame log: which frames were worst and what made each one slow."""

from __future__ import annotations

import gc
import sys
import threading
import time

import pytest

from engine.core.packet import FramePacket
from engine.core.profile import StepTimer
from engine.tools import thread_cpu
from engine.tools.bench_frames import FrameLog, FrameRecord, worst_frames


def record(frame_id: int, stages: dict[str, float], steps: dict[str, float]) -> FrameRecord:
    return FrameRecord(frame_id, sum(stages.values()), 0.0, 1, stages, steps, {})


def steady(frame_id: int) -> FrameRecord:
    """A tracked frame: faces 5 ms (the eyes 3 of it), swapper 6 ms; no detector."""
    steps = {"faces/eyes": 3.0, "faces/eyes/ort_run": 2.5, "swapper/light": 4.0}
    return record(frame_id, {"faces": 5.0, "swapper": 6.0}, steps)


def test_the_culprit_is_the_stage_most_over_its_typical_time() -> None:
    frames = [steady(i) for i in range(20)]
    # Frame 20: a detector re-run of 4 ms. The swapper (6 ms) is the biggest stage in
    # it, but that is its usual time: the face stage's detect step, usually not run
    # (typical 0), is why.
    detect = {"faces/detect": 4.0, "faces/detect/ort_run": 3.0}
    frames.append(record(20, {"faces": 9.0, "swapper": 6.0}, dict(steady(20).steps_ms, **detect)))
    # Frame 21: the iris model took 12 ms instead of 2.5: the deepest step that ran over.
    spike = dict(steady(21).steps_ms, **{"faces/eyes": 12.5, "faces/eyes/ort_run": 12})
    frames.append(record(21, {"faces": 14.5, "swapper": 6.0}, spike))
    # Frame 22: the hand stage, usually skipped, ran 3 ms (no profile in that frame).
    frames.append(record(22, {"faces": 5.0, "swapper": 6.0, "hands": 3.0}, {}))

    worst = worst_frames(frames, 4)
    assert [w["frame_id"] for w in worst[:3]] == [21, 20, 22]
    assert worst[0]["stage"] == "faces" and worst[0]["stage_typical_ms"] == 5.0
    assert worst[0]["step"] == "faces/eyes/ort_run"
    assert (worst[0]["step_ms"], worst[0]["step_typical_ms"]) == (12.0, 2.5)
    assert worst[1]["stage"] == "faces" and worst[1]["step"] == "faces/detect/ort_run"
    assert (worst[1]["step_ms"], worst[1]["step_typical_ms"]) == (3.0, 0.0)
    assert worst[2]["stage"] == "hands" and worst[2]["stage_typical_ms"] == 0.0
    assert "step" not in worst[2]  # no profile steps in that frame
    assert len(worst) == 4 and worst[3]["processing_ms"] == 11.0


def test_no_frames_no_worst() -> None:
    assert worst_frames([], 5) == []


def packet(frame_id: int) -> FramePacket:
    p = FramePacket(frame_id=frame_id, capture_ns=1_000_000, frame=None)  # type: ignore[arg-type]
    p.published_ns = 3_000_000
    p.timings_ms = {"faces": 2.0}
    p.processing_ms = 2.0
    p.steps = StepTimer()
    p.steps.record("faces/mesh", 1.5)
    p.skip("enhancer", "off")
    p.skip("hands", "no face")
    return p


def test_the_log_records_only_between_start_and_stop() -> None:
    log = FrameLog()
    log(packet(1))  # warm-up: not measured
    log.start()
    log(packet(2))
    busy = sum(i * i for i in range(200_000))  # some CPU time for the process clock
    log(packet(3))
    log.stop()
    log(packet(4))
    assert [r.frame_id for r in log.records] == [2, 3] and busy > 0
    assert log.cpu_s > 0
    first = log.records[0]
    assert (first.end_to_end_ms, first.steps_ms) == (2.0, {"faces/mesh": 1.5})
    # Stages switched off are no reason; the hand stage's "no face" is.
    assert log.worst(1)[0]["skipped"] == {"hands": "no face"}


def test_gc_pauses_are_counted_while_attached() -> None:
    log = FrameLog()
    log.attach_gc()
    try:
        log.start()
        gc.collect()
        gc.collect(0)
        log.stop()
    finally:
        log.detach_gc()
    gc.collect()  # after detaching: not counted
    report = log.gc_report()
    assert report["collections"] >= 2
    assert report["by_generation"][2] >= 1 and report["by_generation"][0] >= 1
    assert report["max_ms"] > 0 and report["total_ms"] >= report["max_ms"]


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/task is Linux's")
def test_a_thread_that_ends_before_stop_is_listed_by_its_name() -> None:
    """A drained file source's capture thread ends before the log stops: it hands in its
    CPU time as it ends (as the source's on_end), and is not lumped into "(ended)"."""
    log = FrameLog()
    log.start()
    for i in range(10):
        log(packet(i))

    def capture() -> None:
        burn(0.3)
        log.thread_ending()

    thread = threading.Thread(target=capture, name="source-test")
    thread.start()
    thread.join()
    log.stop()
    ms = log.thread_ms_per_frame()
    # 0.3 s over 10 frames: ~30 ms a frame (the kernel counts in 10 ms ticks).
    assert 20.0 <= ms["source-test"] <= 45.0, ms
    assert ms.get(thread_cpu.ENDED, 0.0) < 10.0, ms


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/task is Linux's")
def test_a_thread_that_ended_before_the_run_is_not_counted() -> None:
    log = FrameLog()

    def early() -> None:
        burn(0.2)
        log.thread_ending()  # not measuring yet: ignored

    thread = threading.Thread(target=early, name="source-early")
    thread.start()
    thread.join()
    log.start()
    log(packet(1))
    log.stop()
    assert "source-early" not in log.thread_ms_per_frame()


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
