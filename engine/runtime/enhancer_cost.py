"""Measures what the enhancer costs, live: frame rate before and after a toggle.

The window feeds it (time, frames published) samples a few times a second. On a toggle
it takes the rate over the last seconds as "before", lets the new mode settle, then
measures "after" over a short window. It also reports the enhancer stage's own time per
frame, which shows the cost even when the camera's frame rate caps the engine. No Qt.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

SETTLE_S = 0.5
WINDOW_S = 2.0


@dataclass(frozen=True, slots=True)
class Cost:
    mode: str  # the enhancer mode that costs this much (never "off")
    fps_delta: float  # fps with the enhancer minus fps without (negative = slower)
    stage_ms: float | None  # the enhancer stage's p50 time per frame, when it ran

    def text(self) -> str:
        parts = [f"{self.fps_delta:+.1f} fps".replace("-", "−")]
        if self.stage_ms is not None:
            parts.append(f"+{self.stage_ms:.1f} ms/frame")
        return f"{self.mode}: " + ", ".join(parts)


class EnhancerCostMeter:
    def __init__(self, settle_s: float = SETTLE_S, window_s: float = WINDOW_S) -> None:
        self.settle_s = settle_s
        self.window_s = window_s
        self._samples: deque[tuple[float, int]] = deque(maxlen=64)
        self._pending: tuple[float, float, str, str] | None = None  # t, fps_before, from, to
        self.costs: dict[str, Cost] = {}

    def sample(self, now: float, frames: int) -> None:
        self._samples.append((now, frames))

    def _rate(self, start: float, end: float) -> float | None:
        window = [(t, f) for t, f in self._samples if start <= t <= end]
        if len(window) < 2 or window[-1][0] - window[0][0] < 0.5 * (end - start):
            return None
        (t0, f0), (t1, f1) = window[0], window[-1]
        return (f1 - f0) / (t1 - t0)

    def toggled(self, now: float, from_mode: str, to_mode: str) -> None:
        if from_mode == to_mode:
            return
        before = self._rate(now - self.window_s, now)
        self._pending = None if before is None else (now, before, from_mode, to_mode)

    @property
    def measuring(self) -> bool:
        return self._pending is not None

    def tick(self, now: float, stage_ms: float | None) -> Cost | None:
        """A new measurement when the window after a toggle has passed, else None."""
        if self._pending is None:
            return None
        t_toggle, before, from_mode, to_mode = self._pending
        start = t_toggle + self.settle_s
        if now < start + self.window_s:
            return None
        self._pending = None
        after = self._rate(start, start + self.window_s)
        if after is None:
            return None
        if to_mode != "off" and from_mode == "off":
            cost = Cost(to_mode, after - before, stage_ms)
        elif to_mode == "off" and from_mode != "off":
            previous = self.costs.get(from_mode)
            cost = Cost(from_mode, before - after, previous.stage_ms if previous else None)
        else:
            return None  # mode to mode: neither side is "without"
        self.costs[cost.mode] = cost
        return cost
