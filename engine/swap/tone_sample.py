"""The pixels the render's skin tone is matched on, gathered in one compiled pass
(numba): engine/swap/shading.py `match_tone`.

In NumPy that was the plain mask's flat indices, every fourth of them, and both images'
pixels gathered there and copied out channel by channel for the medians: four passes and
their temporaries (0.3 ms on a 720p face's render, the 2-core machine); here one pass
over the mask writes the same values, channel-major, for `row_medians`.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from engine.core.types import F32


@njit(cache=True, nogil=True)
def strided_samples(
    image: F32, target: F32, plain: NDArray[np.bool_], stride: int
) -> tuple[F32, F32]:  # pragma: no cover - compiled
    """(ours, theirs), each C×n: `image` and `target` (H×W×C) at every `stride`-th pixel
    where `plain` (H×W) is set, in row-major order from the first:
    `image.reshape(-1, C)[np.flatnonzero(plain)[::stride]].T`."""
    height, width, channels = image.shape
    found = 0
    for y in range(height):
        for x in range(width):
            if plain[y, x]:
                found += 1
    count = (found + stride - 1) // stride
    ours = np.empty((channels, count), image.dtype)
    theirs = np.empty((channels, count), target.dtype)
    seen = 0
    for y in range(height):
        for x in range(width):
            if plain[y, x]:
                if seen % stride == 0:
                    column = seen // stride
                    for c in range(channels):
                        ours[c, column] = image[y, x, c]
                        theirs[c, column] = target[y, x, c]
                seen += 1
    return ours, theirs
