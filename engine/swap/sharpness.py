"""Matches the new face's fine detail to the target's.

A sharp source photo rendered into a soft webcam or video frame looks pasted on: it has
pores and stubble the rest of the frame cannot show. The render is blurred just enough
that its Laplacian energy (the measure of fine detail) does not exceed the target face's.
A softer render is left alone: blur can be added, detail cannot.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.resample import shrink
from engine.core.types import F32, Frame

# How much more fine detail than the target the render may keep (1 = none). Measured on
# the DEV pairs: 1.0 gave the smallest sharpness mismatch (judge |log2| 0.81 vs 1.03 at
# 2.0 and 1.42 unmatched) at no identity cost, and took the obama video from +0.9 to −0.1.
DETAIL_HEADROOM = 1.0
# Candidate blur radii (px), finest first; the first that brings the render's detail down
# to the target's wins.
_MIN_PIXELS = 150
_SIGMAS = (0.5, 0.8, 1.1, 1.5, 2.0, 2.7, 3.6)


def _detail(gray: NDArray[np.float32], where: NDArray[np.uint8]) -> float:
    """Variance of the Laplacian over the pixels `where` is non-zero."""
    _, std = cv2.meanStdDev(cv2.Laplacian(gray, cv2.CV_32F), mask=where)
    return float(std[0, 0]) ** 2


def detail_sigma(
    image: NDArray[np.float32],
    target: NDArray[np.uint8],
    coverage: NDArray[np.bool_],
    where: NDArray[np.bool_] | None = None,
) -> float:
    """Blur σ that brings the render's fine detail down to the target's (0 = none),
    compared inside `coverage` (and `where`, when given)."""
    # Measure away from the face outline, where the frame's background would dominate.
    inner = cv2.erode(coverage.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    if where is not None:
        inner &= where
    if inner.sum() < _MIN_PIXELS:
        return 0.0
    # Only the measured pixels' box (and the blur's reach around it) needs blurring.
    rows, cols = np.nonzero(inner)
    margin = int(np.ceil(3 * _SIGMAS[-1])) + 1
    box = np.s_[
        max(rows.min() - margin, 0) : rows.max() + margin + 1,
        max(cols.min() - margin, 0) : cols.max() + margin + 1,
    ]
    inner = inner[box].astype(np.uint8)
    target_gray = cv2.cvtColor(target[box], cv2.COLOR_BGR2GRAY).astype(np.float32)
    render_gray = cv2.cvtColor(np.ascontiguousarray(image[box]), cv2.COLOR_BGR2GRAY)
    wanted = DETAIL_HEADROOM * _detail(target_gray, inner)
    unblurred = _detail(render_gray, inner)
    if unblurred <= wanted:
        return 0.0

    # The energy falls as σ grows: bisect for the first radius that gets below `wanted`
    # (three blurs instead of up to seven), keeping both bracketing energies.
    lo, hi = -1, len(_SIGMAS)
    lo_energy, hi_energy = unblurred, 0.0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        mid_energy = _detail(cv2.GaussianBlur(render_gray, (0, 0), _SIGMAS[mid]), inner)
        if mid_energy <= wanted:
            hi, hi_energy = mid, mid_energy
        else:
            lo, lo_energy = mid, mid_energy
    if hi == len(_SIGMAS):
        return _SIGMAS[-1]
    # Interpolate in log energy between the bracketing radii: the steps are coarse and
    # the first one that gets below would overshoot into a blurrier face.
    lo_sigma = 0.0 if lo < 0 else _SIGMAS[lo]
    span = np.log(lo_energy) - np.log(max(hi_energy, 1e-9))
    t = (np.log(lo_energy) - np.log(max(wanted, 1e-9))) / span if span > 0 else 1.0
    return float(lo_sigma + (_SIGMAS[hi] - lo_sigma) * t)


@dataclass(frozen=True, slots=True)
class DetailSample:
    """What measuring the target's detail level takes, from one render: measurable on
    another thread (the frame is never written once captured; the render is not either)."""

    image: F32  # the render before softening, on the working grid
    frame: Frame
    box: tuple[int, int, int, int]  # (x0, y0, x1, y1): the frame region under the render
    coverage: NDArray[np.bool_]
    features: F32  # where the source's fine detail is kept (engine/render/composite.py)
    work_iod: float  # the face's inter-ocular distance on the working grid

    def measure(self) -> float:
        """The blur that matches the render's detail to the target's, in IODs."""
        x0, y0, x1, y1 = self.box
        size = (self.image.shape[1], self.image.shape[0])
        target = shrink(self.frame[y0:y1, x0:x1], size)
        # Only the features' fine detail is the source's in the end (the compositor
        # keeps the frame's own on plain skin): match those.
        where = self.features > 0.5
        return detail_sigma(self.image, target, self.coverage, where) / self.work_iod


def soften(image: NDArray[np.float32], sigma: float) -> NDArray[np.float32]:
    return image if sigma <= 0.0 else cv2.GaussianBlur(image, (0, 0), sigma)
