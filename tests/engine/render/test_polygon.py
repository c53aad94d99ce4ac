"""The one polygon mask both swappers cut their face and mouth masks with."""

from __future__ import annotations

import numpy as np

from engine.render.polygon import polygon_mask


def test_a_sub_pixel_square_covers_its_area_with_soft_edges() -> None:
    square = np.array([[10.25, 10.25], [30.75, 10.25], [30.75, 30.75], [10.25, 30.75]], np.float32)
    mask = polygon_mask([square], (40, 50))
    assert mask.shape == (40, 50) and mask.dtype == np.float32
    # OpenCV's antialiased fill spreads the edge outwards by under a pixel.
    assert 20.5**2 <= float(mask.sum()) <= 22.5**2
    assert mask[20, 20] == 1.0 and mask[5, 5] == 0.0 and mask[35, 45] == 0.0
    edge = mask[20, 8:13]
    assert np.any((edge > 0.0) & (edge < 1.0))  # antialiased, not a hard step
