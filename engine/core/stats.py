"""Rolling frame statistics: per-stage time, processing, end-to-end latency, fps, drops."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from engine.core.packet import FramePacket


@dataclass(frozen=True, slots=True)
class Summary:
    p50_ms: float
    p95_ms: float
    max_ms: float

    @staticmethod
    def of(values: list[float] | deque[float]) -> Summary:
        if not values:
            return Summary(0.0, 0.0, 0.0)
        arr = np.fromiter(values, dtype=np.float64, count=len(values))
        p50, p95 = np.percentile(arr, [50, 95])
        return Summary(float(p50), float(p95), float(arr.max()))

    def as_dict(self) -> dict[str, float]:
        return {
            "p50_ms": round(self.p50_ms, 3),
            "p95_ms": round(self.p95_ms, 3),
            "max_ms": round(self.max_ms, 3),
        }


@dataclass(frozen=True, slots=True)
class Total:
    """Since the last reset: frames in which a stage or step ran, and its summed time."""

    frames: int = 0
    total_ms: float = 0.0

    def plus(self, ms: float) -> Total:
        return Total(self.frames + 1, self.total_ms + ms)


@dataclass(frozen=True, slots=True)
class StatsSnapshot:
    frames: int
    fps: float
    dropped: int
    # Per stage over the frames in which it ran (a skipped frame adds no sample).
    stages: dict[str, Summary]
    processing: Summary
    end_to_end: Summary
    # Why stages skipped, counted since the last reset: {"hands": {"no face": 290}}.
    skipped: dict[str, dict[str, int]] = field(default_factory=dict)
    # The stages the newest frame skipped and why: what the HUD shows instead of a time.
    last_skipped: dict[str, str] = field(default_factory=dict)
    # Sub-steps ("landmarker/ort_run") over the frames they ran in, when profiling.
    steps: dict[str, Summary] = field(default_factory=dict)
    # Stages, sub-steps and "processing": frames and summed time since the last reset.
    totals: dict[str, Total] = field(default_factory=dict)
    # The same keys' summed CPU time of the thread that ran them, when profiling.
    cpu_totals_ms: dict[str, float] = field(default_factory=dict)


_NO_TOTAL = Total()
# The key of a frame's whole processing time (stages and mirror) in totals and steps.
PROCESSING = "processing"


class FrameStats:
    """Sliding window over the last `window` frames; safe to read from any thread."""

    def __init__(self, window: int = 120) -> None:
        self._window = window
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Forget everything (the benchmark drops its warm-up frames this way)."""
        window = self._window
        with self._lock:
            self._stages: dict[str, deque[float]] = {}
            self._processing: deque[float] = deque(maxlen=window)
            self._end_to_end: deque[float] = deque(maxlen=window)
            self._published: deque[int] = deque(maxlen=window)
            self._steps: dict[str, deque[float]] = {}
            self._totals: dict[str, Total] = {}
            self._cpu_totals: dict[str, float] = {}
            self._skipped: dict[str, dict[str, int]] = {}
            self._last_skipped: dict[str, str] = {}
            self.frames = 0
            self.dropped = 0

    def record(self, packet: FramePacket, processing_ms: float) -> None:
        with self._lock:
            self._add(self._stages, packet.timings_ms)
            self._add(self._steps, packet.steps.times_ms)
            cpu = self._cpu_totals
            for name, ms in packet.steps.cpu_ms.items():
                cpu[name] = cpu.get(name, 0.0) + ms
            self._add_totals({PROCESSING: processing_ms})
            for name, reason in packet.skipped.items():
                reasons = self._skipped.setdefault(name, {})
                reasons[reason] = reasons.get(reason, 0) + 1
            self._last_skipped = dict(packet.skipped)
            self._processing.append(processing_ms)
            self._end_to_end.append((packet.published_ns - packet.capture_ns) / 1e6)
            self._published.append(packet.published_ns)
            self.frames += 1

    def _add(self, series: dict[str, deque[float]], times_ms: dict[str, float]) -> None:
        for name, ms in times_ms.items():
            values = series.get(name)
            if values is None:
                values = series[name] = deque(maxlen=self._window)
            values.append(ms)
        self._add_totals(times_ms)

    def _add_totals(self, times_ms: dict[str, float]) -> None:
        totals = self._totals
        for name, ms in times_ms.items():
            totals[name] = totals.get(name, _NO_TOTAL).plus(ms)

    def set_dropped(self, dropped: int) -> None:
        self.dropped = dropped

    def snapshot(self) -> StatsSnapshot:
        with self._lock:
            stamps = list(self._published)
            fps = 0.0
            if len(stamps) >= 2 and stamps[-1] > stamps[0]:
                fps = (len(stamps) - 1) / ((stamps[-1] - stamps[0]) / 1e9)
            # A stalled engine should read as 0 fps, not as its last good rate.
            if stamps and time.monotonic_ns() - stamps[-1] > 2_000_000_000:
                fps = 0.0
            return StatsSnapshot(
                frames=self.frames,
                fps=fps,
                dropped=self.dropped,
                stages={name: Summary.of(v) for name, v in self._stages.items()},
                processing=Summary.of(self._processing),
                end_to_end=Summary.of(self._end_to_end),
                skipped={name: dict(r) for name, r in self._skipped.items()},
                last_skipped=dict(self._last_skipped),
                steps={name: Summary.of(v) for name, v in self._steps.items()},
                totals=dict(self._totals),
                cpu_totals_ms=dict(self._cpu_totals),
            )
