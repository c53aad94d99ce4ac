"""The one polygon mask both swappers cut their face and mouth masks with."""

from __future__ import annotations

import numpy as np

from engine.face.mesh import topology
from engine.render.polygon import polygon_mask
from engine.swap.renderer import _keep_mask


def test_a_sub_pixel_square_covers_its_area_with_soft_edges() -> None:
    square = np.array([[10.25, 10.25], [30.75, 10.25], [30.75, 30.75], [10.25, 30.75]], np.float32)
    mask = polygon_mask([square], (40, 50))
    assert mask.shape == (40, 50) and mask.dtype == np.float32
    # OpenCV's antialiased fill spreads the edge outwards by under a pixel.
    assert 20.5**2 <= float(mask.sum()) <= 22.5**2
    assert mask[20, 20] == 1.0 and mask[5, 5] == 0.0 and mask[35, 45] == 0.0
    edge = mask[20, 8:13]
    assert np.any((edge > 0.0) & (edge < 1.0))  # antialiased, not a hard step


def test_it_is_the_renderers_keep_mask_bit_for_bit() -> None:
    """So the renderer can draw its mouth mask with it and stay bit-identical."""
    topo = topology()
    rng = np.random.default_rng(3)
    local = (topo.uv * 180 + rng.normal(0, 0.3, topo.uv.shape) + 10).astype(np.float32)
    contours = [topo.region("lips_inner"), topo.region("face_oval")]
    expected = _keep_mask(local, contours, (200, 200))
    assert expected is not None
    got = polygon_mask([local[c] for c in contours], (200, 200))
    np.testing.assert_array_equal(got, expected)
