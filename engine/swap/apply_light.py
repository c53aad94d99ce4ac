"""The render's per-pixel light as one compiled pass (numba).

Per pixel of the render, from what was looked up at its texture coordinate: the eyes'
own gain, the source's albedo times the gain, its highlight roll-off, and the masks that
ride in the lookups' spare channels. In NumPy that was a dozen full-size passes and
temporaries. (The lookups stay OpenCV remaps: its SIMD bilinear is faster than a
compiled loop on the 2-core machine.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.types import F32
from engine.swap.shading import LUMA

KNEE = 230.0  # grey level above which highlights are compressed, not clipped
EYE_LIMITS = (0.5, 2.0)  # the eyes' lightness gain stays within these


@njit(cache=True, nogil=True)
def roll_off(value: float) -> float:  # pragma: no cover - compiled
    """Highlights above the knee approach white smoothly: a large gain (dark skin onto
    pale) would otherwise clip light features (eyeshadow, teeth, specular) flat white.
    (A rational soft clip: slope 1 at the knee, 255 at infinity.)"""
    over = value - KNEE
    if over <= 0.0:
        return value
    span = 255.0 - KNEE
    return KNEE + span * over / (over + span)


@njit(cache=True, nogil=True)
def eye_gain(gain: F32, weight: float) -> None:  # pragma: no cover - compiled
    """`gain` (BGR) moved, by `weight` (0..1, how much this is eye), to the eyes' own:
    half the skin's change in lightness and half its change in hue (in log terms).
    Between a dark and a pale skin most of the change is pigment, which eyes do not
    share: the full gain makes glaring whites and tints the iris with the skin's colour,
    none makes dark holes and leaves neutral whites looking blue inside warm skin (the
    camera's white balance is part of the hue change)."""
    if weight <= 0.0:
        return
    lightness = max(LUMA[0] * gain[0] + LUMA[1] * gain[1] + LUMA[2] * gain[2], 1e-3)
    own = min(max(np.sqrt(lightness), EYE_LIMITS[0]), EYE_LIMITS[1])
    for c in range(3):
        eye = own * np.sqrt(gain[c] / lightness)
        gain[c] += (eye - gain[c]) * weight


@njit(cache=True, nogil=True)
def shade(
    source: F32, gain: F32, weights: F32, coverage: np.ndarray, relight: bool
) -> tuple[F32, F32, F32]:  # pragma: no cover - compiled
    """(image H×W×3, mask, features) of the render from what was looked up at each of
    its pixels: `source` (H×W×4: de-lit albedo BGR, forehead skin), `gain` (H×W×3: the
    light's BGR gain) and `weights` (H×W×2: eye and feature weight). Without `relight`
    the albedo is left as it is (and `gain` is not read). Mask and features are 0 where
    the face does not cover the pixel."""
    height, width = coverage.shape
    image = np.empty((height, width, 3), np.float32)
    mask = np.zeros((height, width), np.float32)
    features = np.zeros((height, width), np.float32)
    here = np.empty(3, np.float32)
    for y in range(height):
        for x in range(width):
            if relight:
                for c in range(3):
                    here[c] = gain[y, x, c]
                eye_gain(here, weights[y, x, 0])
                for c in range(3):
                    image[y, x, c] = roll_off(source[y, x, c] * here[c])
            else:
                for c in range(3):
                    image[y, x, c] = source[y, x, c]
            if coverage[y, x]:
                mask[y, x] = source[y, x, 3]
                features[y, x] = weights[y, x, 1]
    return image, mask, features
