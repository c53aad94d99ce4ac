"""The mark's saturating add as one compiled pass (numba): a single-channel signed plane
added to all three channels of a frame.

The mark is the same on B, G and R, so one int8 value per pixel is all it needs: a
third of the bytes a 3-channel plane reads, and half of what the old (positive,
negative) pair of 3-channel planes read, in one pass instead of two.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

Delta = NDArray[np.int8]  # H×W, the mark's signed change in grey levels


@njit(cache=True, nogil=True)
def add_delta(
    rows: NDArray[np.uint8], delta: Delta, out: NDArray[np.uint8]
) -> None:  # pragma: no cover - compiled
    """out = clip(rows + delta, 0, 255) on every channel: `rows` and `out` are frames as
    H×3W (pixels and channels of a row flattened), `delta` is H×W.

    The add is done on the values shifted by 128 (x ^ 0x80 is x − 128 as int8), where
    the compiler turns the clamp into one saturating signed byte add: in the plain form
    numba widens every byte to int64 and the pass took three times as long. Rows flattened,
    with the channel index written out (3·x + c): over H×W×3 arrays the compiler did not
    vectorise the loop at all (ten times slower)."""
    height, width = delta.shape
    for y in range(height):
        row, mark, dst = rows[y], delta[y], out[y]
        for x in range(width):
            d = mark[x]
            for c in range(3):
                shifted = np.int8(row[3 * x + c] ^ np.uint8(0x80))
                value = min(max(shifted + d, -128), 127)
                dst[3 * x + c] = np.uint8(np.int8(value) ^ np.int8(-128))
