"""Per-pixel mixes of an H×W×3 image by an H×W weight, as compiled loops (numba).

In NumPy an H×W weight broadcast against an H×W×3 image runs an inner loop three
elements long, with a temporary for every operator: the renderer's blend toward the
target's own pixels (its beard, its highlights) and the skin texture's gain cost
0.2-0.4 ms each at the working size. The arithmetic is the NumPy form's, in the
inputs' float32, in the same order: the results are the same bits
(tests/engine/swap/test_mix.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.types import F32


@njit(cache=True, nogil=True)
def towards(image: F32, other: F32, weight: F32) -> F32:  # pragma: no cover - compiled
    """image + weight · (other − image), per pixel and channel (`weight` H×W): a new
    array."""
    height, width, channels = image.shape
    out = np.empty((height, width, channels), image.dtype)
    for y in range(height):
        for x in range(width):
            w = weight[y, x]
            if w == 0.0:  # image + 0 · (other − image) is image, bit for bit
                for c in range(channels):
                    out[y, x, c] = image[y, x, c]
                continue
            for c in range(channels):
                out[y, x, c] = image[y, x, c] + w * (other[y, x, c] - image[y, x, c])
    return out


@njit(cache=True, nogil=True)
def scaled(image: F32, factor: F32) -> F32:  # pragma: no cover - compiled
    """image · factor, per pixel and channel (`factor` H×W): a new array."""
    height, width, channels = image.shape
    out = np.empty((height, width, channels), image.dtype)
    for y in range(height):
        for x in range(width):
            f = factor[y, x]
            for c in range(channels):
                out[y, x, c] = image[y, x, c] * f
    return out
