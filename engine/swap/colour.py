"""Robust skin-colour matching in CIELAB with limited contrast gain.

Plain mean/std transfer breaks between dark and pale skin: a large std ratio stretches
contrast and turns light eyeshadow into white blotches. Statistics come from skin
samples only, trimmed, and the gain is clamped.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32

GAIN_LIMITS = (0.8, 1.25)


def to_lab(bgr: NDArray[np.floating]) -> F32:
    shape = bgr.shape
    flat = np.clip(np.asarray(bgr, np.float32).reshape(-1, 1, 3) / 255.0, 0.0, 1.0)
    return cv2.cvtColor(flat, cv2.COLOR_BGR2Lab).reshape(shape)


def _trimmed_stats(values: F32) -> tuple[F32, F32]:
    lo, hi = np.percentile(values, [5, 95], axis=0)
    clipped = np.clip(values, lo, hi)
    return clipped.mean(axis=0), clipped.std(axis=0) + 1e-3


def lab_transfer(source: F32, target: F32) -> tuple[F32, F32]:
    """Per-channel (scale, offset) in Lab taking source skin samples to the target's."""
    s_mean, s_std = _trimmed_stats(to_lab(source))
    t_mean, t_std = _trimmed_stats(to_lab(target))
    scale = np.clip(t_std / s_std, *GAIN_LIMITS).astype(np.float32)
    offset = (t_mean - s_mean * scale).astype(np.float32)
    return scale, offset


def apply_lab(colours: NDArray[np.floating], scale: F32, offset: F32) -> F32:
    """Apply a Lab (scale, offset) to BGR colours (…×3, 0..255), exactly."""
    lab = to_lab(colours) * scale + offset
    bgr = cv2.cvtColor(lab.reshape(-1, 1, 3).astype(np.float32), cv2.COLOR_Lab2BGR)
    return bgr.reshape(np.shape(colours)) * 255.0


def bgr_affine(calibration: NDArray[np.floating], scale: F32, offset: F32) -> F32:
    """A 3×4 BGR affine that reproduces the Lab transfer on the given colours.

    Two float Lab conversions of a face-sized patch cost ~5 ms per frame; over one face's
    colours the transfer is close to affine in BGR, so it is fitted once on that face's
    own colours (all mesh vertices: skin, lips, eyes, brows) and applied with one
    `cv2.transform`."""
    src = np.asarray(calibration, np.float64).reshape(-1, 3)
    dst = apply_lab(src, scale, offset).astype(np.float64)
    design = np.hstack([src, np.ones((len(src), 1))])
    solution, *_ = np.linalg.lstsq(design, dst, rcond=None)
    return solution.T.astype(np.float32)
