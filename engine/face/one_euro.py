"""One Euro filter (Casiez et al. 2012), vectorised over points.

Low cutoff when still (no shimmer), rising with speed (no lag on fast moves).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray


def _alpha(cutoff_hz: NDArray[np.float64] | float, dt: float) -> NDArray[np.float64] | float:
    tau = 1.0 / (2.0 * math.pi * np.asarray(cutoff_hz))
    return 1.0 / (1.0 + tau / dt)


class OneEuroFilter:
    """Filters an array of shape (N, D); speed is measured per point (norm over D).

    `scale` normalises speed (e.g. the face size in pixels), so one `beta` works for
    near and far faces.
    """

    def __init__(self, min_cutoff_hz: float, beta: float, d_cutoff_hz: float = 1.0) -> None:
        self.min_cutoff_hz = min_cutoff_hz
        self.beta = beta
        self.d_cutoff_hz = d_cutoff_hz
        self._x: NDArray[np.float64] | None = None
        self._dx: NDArray[np.float64] | None = None
        self._t: float | None = None

    def reset(self) -> None:
        self._x = self._dx = None
        self._t = None

    def __call__(
        self, x: NDArray[np.floating], t_s: float, scale: float = 1.0
    ) -> NDArray[np.float64]:
        value = np.asarray(x, dtype=np.float64)
        if self._x is None or self._t is None or self._x.shape != value.shape or t_s <= self._t:
            self._x, self._dx, self._t = value.copy(), np.zeros_like(value), t_s
            return value
        dt = t_s - self._t
        self._t = t_s
        dx = (value - self._x) / dt
        assert self._dx is not None
        self._dx = self._dx + _alpha(self.d_cutoff_hz, dt) * (dx - self._dx)
        speed = np.linalg.norm(self._dx, axis=-1, keepdims=True) / max(scale, 1e-6)
        cutoff = self.min_cutoff_hz + self.beta * speed
        self._x = self._x + _alpha(cutoff, dt) * (value - self._x)
        return self._x.copy()
