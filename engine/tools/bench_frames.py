"""`fusecam bench`'s per-frame record: the worst frames and what made each slow, the
process's CPU time, and the garbage collector's pauses during a run.

A frame is slow because some stage (or one of its sub-steps, when profiling) took longer
than it usually does: the face stage detecting on a frame where it usually only tracks,
a scene cut that makes it search again. So the culprit of a frame is the stage with the
largest excess over its typical time, where "typical" is the median over every measured
frame with a skipped stage or a step that did not run counted as 0 ms (the face stage's
"detect", run one frame in thirty, has a typical time of 0, and its run is all excess);
inside it, the step with the largest excess, followed down to the deepest level the
profile has.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.core.packet import FramePacket
from engine.core.profile import depth_of, parent_of
from engine.core.stats import PROCESSING, Summary
from engine.tools import thread_cpu

WORST_FRAMES = 5


@dataclass(frozen=True, slots=True)
class FrameRecord:
    frame_id: int
    processing_ms: float
    end_to_end_ms: float
    faces: int
    stages_ms: dict[str, float]  # the stages that ran
    steps_ms: dict[str, float]  # sub-steps, when profiling (else empty)
    skipped: dict[str, str]
    # The engine thread's CPU time in the frame and per stage, when profiling (else
    # empty): a slow frame with little CPU time was the neighbours', not ours.
    cpu_ms: dict[str, float] = field(default_factory=dict)


class FrameLog:
    """An engine listener keeping one record per measured frame (the bench measures a
    few hundred), plus the GC pauses and the process CPU time between start and stop."""

    def __init__(self) -> None:
        self.records: list[FrameRecord] = []
        self._active = False
        self._cpu_started = 0.0
        self.cpu_s = 0.0
        self._threads_before: dict[int, tuple[str, float]] = {}
        self._threads_after: dict[int, tuple[str, float]] = {}
        self._threads_ended: dict[int, tuple[str, float]] = {}
        self._gc = _GcPauses()

    def start(self) -> None:
        """Begin measuring (on the engine thread, right after the last warm-up frame)."""
        self.records.clear()
        self._gc.reset()
        self._cpu_started = time.process_time()
        self._threads_before = thread_cpu.snapshot()
        self._threads_ended = {}
        self._active = True

    def stop(self) -> None:
        if self._active:
            # Process CPU time: every thread (capture decode, engine, onnxruntime, sinks).
            self.cpu_s = time.process_time() - self._cpu_started
            self._threads_after = _with_ended(thread_cpu.snapshot(), self._threads_ended)
        self._active = False

    def thread_ending(self) -> None:
        """Called by a thread that ends before `stop` (the source's `on_end`, as its file
        drains): its CPU time so far, which the snapshot at `stop` cannot see. Without it
        the capture thread was 3.5-4.6 ms a frame of "(ended)" in the bench's table."""
        if self._active:
            self._threads_ended.update(thread_cpu.this_thread())

    def __call__(self, packet: FramePacket) -> None:
        if not self._active:
            return
        self.records.append(
            FrameRecord(
                frame_id=packet.frame_id,
                processing_ms=packet.processing_ms,
                end_to_end_ms=(packet.published_ns - packet.capture_ns) / 1e6,
                faces=len(packet.faces),
                stages_ms=dict(packet.timings_ms),
                steps_ms=dict(packet.steps.times_ms),
                skipped=dict(packet.skipped),
                cpu_ms={k: v for k, v in packet.steps.cpu_ms.items() if "/" not in k},
            )
        )

    def attach_gc(self) -> None:
        gc.callbacks.append(self._gc)

    def detach_gc(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)

    def gc_report(self) -> dict[str, Any]:
        return self._gc.report()

    def thread_ms_per_frame(self) -> dict[str, float]:
        """Where the process CPU time went, per thread name, in ms per measured frame."""
        frames = len(self.records)
        before, after = self._threads_before, self._threads_after
        return thread_cpu.per_thread_ms(before, after, frames, self.cpu_s)

    def worst(self, count: int = WORST_FRAMES) -> list[dict[str, Any]]:
        return worst_frames(self.records, count)

    def processing_cpu(self) -> dict[str, float] | None:
        """p50/p95/max of the engine thread's CPU time per frame (profiling only): the
        spread of our own work, which other programs on the machine cannot inflate."""
        values = [r.cpu_ms[PROCESSING] for r in self.records if PROCESSING in r.cpu_ms]
        return Summary.of(values).as_dict() if values else None


def _with_ended(
    after: dict[int, tuple[str, float]], ended: dict[int, tuple[str, float]]
) -> dict[int, tuple[str, float]]:
    """The snapshot at the end with the threads that handed in their time as they ended.
    One may still be listed, by its kernel name (its task outlives Python's join for a
    moment): it keeps its own name and the later, larger time."""
    merged = dict(after)
    for tid, (name, cpu_s) in ended.items():
        merged[tid] = (name, max(cpu_s, after.get(tid, (name, 0.0))[1]))
    return merged


def worst_frames(records: Sequence[FrameRecord], count: int) -> list[dict[str, Any]]:
    """The `count` frames with the longest processing, slowest first, each with the stage
    and the step that exceeded their typical time the most."""
    if not records:
        return []
    stage_typ = _typical([r.stages_ms for r in records])
    step_typ = _typical([r.steps_ms for r in records])
    ranked = sorted(records, key=lambda r: r.processing_ms, reverse=True)[:count]
    return [_describe(r, stage_typ, step_typ) for r in ranked]


def _typical(series: Sequence[dict[str, float]]) -> dict[str, float]:
    """Per key, the median over all frames, a frame without the key counting as 0."""
    keys = {k for times in series for k in times}
    return {k: float(np.median([times.get(k, 0.0) for times in series])) for k in keys}


def _describe(
    r: FrameRecord, stage_typ: dict[str, float], step_typ: dict[str, float]
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "frame_id": r.frame_id,
        "processing_ms": round(r.processing_ms, 3),
        "end_to_end_ms": round(r.end_to_end_ms, 3),
        "faces": r.faces,
    }
    if PROCESSING in r.cpu_ms:
        row["processing_cpu_ms"] = round(r.cpu_ms[PROCESSING], 3)
    if r.stages_ms:
        stage = max(r.stages_ms, key=lambda k: r.stages_ms[k] - stage_typ.get(k, 0.0))
        row["stage"] = stage
        row["stage_ms"] = round(r.stages_ms[stage], 3)
        row["stage_typical_ms"] = round(stage_typ.get(stage, 0.0), 3)
        if stage in r.cpu_ms:
            row["stage_cpu_ms"] = round(r.cpu_ms[stage], 3)
        step = _slowest_step(stage, r.steps_ms, step_typ)
        if step is not None:
            row["step"] = step
            row["step_ms"] = round(r.steps_ms[step], 3)
            row["step_typical_ms"] = round(step_typ.get(step, 0.0), 3)
    # Why stages skipped (tracking, background), leaving out those switched off.
    skipped = {k: v for k, v in r.skipped.items() if v != "off"}
    if skipped:
        row["skipped"] = skipped
    return row


def _slowest_step(stage: str, steps: dict[str, float], typical: dict[str, float]) -> str | None:
    """From the stage down, the child with the largest excess at each level."""
    found: str | None = None
    parent = stage
    while True:
        depth = depth_of(parent) + 1
        kids = [k for k in steps if depth_of(k) == depth and parent_of(k) == parent]
        if not kids:
            return found
        parent = found = max(kids, key=lambda k: steps[k] - typical.get(k, 0.0))


class _GcPauses:
    """A gc.callbacks hook: how often the collector ran during the run and how long it
    held the interpreter (every Python thread waits for it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._started_ns = 0
            self._pauses_ms: list[float] = []
            self._by_generation = [0, 0, 0]

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter_ns()
        with self._lock:
            if phase == "start":
                self._started_ns = now
            elif self._started_ns:
                self._pauses_ms.append((now - self._started_ns) / 1e6)
                self._by_generation[min(info.get("generation", 0), 2)] += 1
                self._started_ns = 0

    def report(self) -> dict[str, Any]:
        with self._lock:
            pauses = list(self._pauses_ms)
            return {
                "collections": len(pauses),
                "by_generation": list(self._by_generation),
                "total_ms": round(sum(pauses), 3),
                "max_ms": round(max(pauses, default=0.0), 3),
            }
