"""The per-pixel passes of the renderer's target broad light (engine/swap/renderer.py
`_target_broad_light`) as compiled loops (numba).

In NumPy each H×W mask broadcast against the H×W×3 image runs an inner loop three
elements long, and the five such passes (with their temporaries) cost more than the two
box filters between them. The arithmetic is the NumPy form's, in float32, in the same
order: the results are the same bits (tests/engine/swap/test_broad_light.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.types import F32
from engine.swap.shading import LUMA


@njit(cache=True, nogil=True)
def masked_difference(own: F32, image: F32, weight: F32) -> F32:  # pragma: no cover - compiled
    """H×W×4: (own − image) · weight per pixel and channel (`weight` H×W), and the
    weight itself as a fourth channel: one box filter then sums both."""
    height, width, channels = image.shape
    out = np.empty((height, width, channels + 1), np.float32)
    for y in range(height):
        for x in range(width):
            w = weight[y, x]
            for c in range(channels):
                out[y, x, c] = (own[y, x, c] - image[y, x, c]) * w
            out[y, x, channels] = w
    return out


@njit(cache=True, nogil=True)
def add_broad_difference(
    image: F32, sums: F32, features: F32, weight: F32, amount: float, chroma: float
) -> F32:  # pragma: no cover - compiled
    """image + (1 − features)·weight · (amount·grey + chroma·(d − grey)), with d the
    broad difference difference_sum / (weight_sum + 1e-4) and grey its luma (BT.601
    weights, the same in every channel): `sums` is the box-filtered `masked_difference`
    (its last channel the weight's sum). The masked box filter's normalisation, the
    split into lightness and colour and the blend, in one pass (H×W×3)."""
    height, width, channels = image.shape
    out = np.empty((height, width, channels), np.float32)
    share = np.float32(amount)
    colour = np.float32(chroma)
    one = np.float32(1.0)
    eps = np.float32(1e-4)
    for y in range(height):
        for x in range(width):
            norm = one / (sums[y, x, channels] + eps)
            keep = (one - features[y, x]) * weight[y, x] * norm
            # The difference's lightness moves every channel alike; the rest is colour.
            grey = LUMA[0] * sums[y, x, 0] + LUMA[1] * sums[y, x, 1] + LUMA[2] * sums[y, x, 2]
            for c in range(channels):
                change = share * grey + colour * (sums[y, x, c] - grey)
                out[y, x, c] = image[y, x, c] + keep * change
    return out
