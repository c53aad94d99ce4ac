"""Measures what the enhancer costs, live, from the frames around a toggle. No Qt.

Every published frame is recorded (an engine listener: publish time, the enhancer's own
time when it ran, the whole frame's processing time). On a toggle, frames of the last
`window_s` are "before", frames from `settle_s` after it for `window_s` are "after".

Two figures, each with its spread, so a number never claims more than it measured:

- the enhancer's own time per frame — p50 with p10–p90, over the frames it ran in.
  This is the cost even when the camera's frame rate caps the engine and the frame rate
  does not move at all;
- the frame rate before and after, each as the range of its rate over half-second
  slices. When the two ranges overlap, the change is within the noise and is reported
  as such — not as "+0.9 fps" for a stage that cannot make anything faster.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.core.packet import FramePacket

SETTLE_S = 0.5
WINDOW_S = 2.0
SLICE_S = 0.5  # frame-rate samples: frames per half second
STAGE = "enhancer"


@dataclass(frozen=True, slots=True)
class Spread:
    low: float  # p10
    mid: float  # p50
    high: float  # p90

    @staticmethod
    def of(values: Sequence[float]) -> Spread:
        low, mid, high = np.percentile(np.asarray(values, np.float64), (10, 50, 90))
        return Spread(float(low), float(mid), float(high))

    def overlaps(self, other: Spread) -> bool:
        return self.low <= other.high and other.low <= self.high


@dataclass(frozen=True, slots=True)
class Cost:
    mode: str  # the enhancer mode that costs this much (never "off")
    stage_ms: Spread | None  # its own time per frame, over frames it ran in
    fps_without: Spread
    fps_with: Spread

    @property
    def fps_delta(self) -> float:
        """fps with the enhancer minus fps without (negative = slower), medians."""
        return self.fps_with.mid - self.fps_without.mid

    @property
    def fps_changed(self) -> bool:
        """A frame-rate change beyond the half-second jitter of either side."""
        return not self.fps_without.overlaps(self.fps_with)

    def text(self) -> str:
        parts = []
        if self.stage_ms is not None:
            s = self.stage_ms
            parts.append(f"{s.mid:.1f} ms/frame ({s.low:.1f}–{s.high:.1f})")
        if self.fps_changed:
            parts.append(f"{self.fps_without.mid:.0f} → {self.fps_with.mid:.0f} fps")
        else:
            low = min(self.fps_without.low, self.fps_with.low)
            high = max(self.fps_without.high, self.fps_with.high)
            parts.append(f"frame rate unchanged ({low:.0f}–{high:.0f} fps either way)")
        return f"{self.mode}: " + ", ".join(parts)


@dataclass(frozen=True, slots=True)
class _Frame:
    t_s: float  # published, monotonic seconds
    stage_ms: float | None  # None: the enhancer did not run on this frame


class EnhancerCostMeter:
    def __init__(self, settle_s: float = SETTLE_S, window_s: float = WINDOW_S) -> None:
        self.settle_s = settle_s
        self.window_s = window_s
        self._lock = threading.Lock()
        self._frames: deque[_Frame] = deque(maxlen=2000)
        self._pending: tuple[float, str, str] | None = None  # toggle time, from, to
        self.costs: dict[str, Cost] = {}

    def frame(self, packet: FramePacket) -> None:
        """An engine listener (engine thread): record one published frame."""
        self.record(packet.published_ns / 1e9, packet.timings_ms.get(STAGE))

    def record(self, t_s: float, stage_ms: float | None) -> None:
        with self._lock:
            self._frames.append(_Frame(t_s, stage_ms))

    def _window(self, start: float, end: float) -> list[_Frame]:
        with self._lock:
            return [f for f in self._frames if start <= f.t_s < end]

    def _rates(self, frames: list[_Frame], start: float, end: float) -> Spread | None:
        edges = np.arange(start, end + 1e-9, SLICE_S)
        if len(edges) < 3:
            return None
        counts, _ = np.histogram([f.t_s for f in frames], bins=edges)
        return Spread.of((counts / SLICE_S).tolist())

    def toggled(self, now: float, from_mode: str, to_mode: str) -> None:
        if from_mode == to_mode or "off" not in (from_mode, to_mode):
            self._pending = None  # mode to mode: neither side is "without"
            return
        enough = len(self._window(now - self.window_s, now)) >= 2
        self._pending = (now, from_mode, to_mode) if enough else None

    @property
    def measuring(self) -> bool:
        return self._pending is not None

    def tick(self, now: float) -> Cost | None:
        """A new measurement once the window after a toggle has passed, else None."""
        if self._pending is None:
            return None
        t_toggle, from_mode, to_mode = self._pending
        start = t_toggle + self.settle_s
        if now < start + self.window_s:
            return None
        self._pending = None
        before = self._window(t_toggle - self.window_s, t_toggle)
        after = self._window(start, start + self.window_s)
        rate_before = self._rates(before, t_toggle - self.window_s, t_toggle)
        rate_after = self._rates(after, start, start + self.window_s)
        if rate_before is None or rate_after is None or not after:
            return None
        on, off_rate, on_rate, mode = (
            (after, rate_before, rate_after, to_mode)
            if from_mode == "off"
            else (before, rate_after, rate_before, from_mode)
        )
        times = [f.stage_ms for f in on if f.stage_ms is not None]
        cost = Cost(mode, Spread.of(times) if times else None, off_rate, on_rate)
        self.costs[mode] = cost
        return cost
