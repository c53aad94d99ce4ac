"""The part of the render's grid that a per-region step works on: some mesh vertices'
bounding box with a margin, cut to the grid."""

from __future__ import annotations

import numpy as np

from engine.core.types import F32


def vertex_box(
    points: F32, ids: list[int], shape: tuple[int, int], margin: float, least: int = 2
) -> tuple[slice, slice] | None:
    """(rows, cols) of the grid (`shape`, H×W): the vertices `ids` of `points` (the
    posed mesh on the grid, N×2) with `margin` grid pixels round them; None when that
    is off the grid or under `least` pixels across."""
    chosen = points[ids]
    height, width = shape
    x0, y0 = np.maximum(np.floor(chosen.min(axis=0) - margin).astype(int), 0)
    x1 = min(width, int(np.ceil(chosen[:, 0].max() + margin)) + 1)
    y1 = min(height, int(np.ceil(chosen[:, 1].max() + margin)) + 1)
    if x1 - x0 < least or y1 - y0 < least:
        return None
    return slice(int(y0), int(y1)), slice(int(x0), int(x1))
