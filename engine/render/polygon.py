"""Antialiased polygon masks: the one way a mesh contour becomes a mask.

Both swappers cut their face and keep (mouth) masks from mesh contours this way: the
built-in renderer on its working grid, the neural swapper on its paste region.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from engine.core.types import F32

# Fixed-point bits of the vertex coordinates: sub-pixel edges, as the mesh points are.
_SHIFT = 2


def polygon_mask(polygons: Sequence[F32], shape: tuple[int, ...]) -> F32:
    """The polygons (each N×2 pixel coordinates) filled on a `shape[:2]` canvas,
    antialiased: float32 0..1."""
    canvas = np.zeros(shape[:2], np.uint8)
    fixed = [np.round(p * (1 << _SHIFT)).astype(np.int32) for p in polygons]
    cv2.fillPoly(canvas, fixed, 255, cv2.LINE_AA, shift=_SHIFT)
    return canvas.astype(np.float32) * (1.0 / 255.0)
