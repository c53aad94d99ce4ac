"""A mesh rasterised once (`FixedRaster`) interpolates as a fresh rasterisation does."""

from __future__ import annotations

import numpy as np
import pytest

from engine.face.mesh import topology
from engine.render.raster import FixedRaster, rasterize_attributes
from engine.render.uvmap import uv_map


@pytest.mark.parametrize("size", [64, 512])
def test_the_uv_map_interpolates_like_the_rasteriser_bit_for_bit(size: int) -> None:
    topo = topology()
    attrs = np.random.default_rng(size).uniform(-300, 900, (len(topo.uv), 3)).astype(np.float32)
    expected, covered = rasterize_attributes(
        topo.uv * size, np.zeros(len(topo.uv)), topo.triangles, attrs, (size, size)
    )
    uvm = uv_map(size)
    np.testing.assert_array_equal(uvm.covered, covered)
    np.testing.assert_array_equal(uvm.interpolate(attrs), expected)


def test_overlapping_triangles_keep_the_nearest_like_the_rasteriser() -> None:
    rng = np.random.default_rng(2)
    xy = rng.uniform(-3, 23, (30, 2)).astype(np.float32)
    depth = rng.uniform(0, 1, 30).astype(np.float32)
    tris = rng.integers(0, 30, (40, 3)).astype(np.int32)
    attrs = rng.uniform(0, 1, (30, 2)).astype(np.float32)
    expected, covered = rasterize_attributes(xy, depth, tris, attrs, (20, 24))
    raster = FixedRaster(xy, depth, tris, (20, 24))
    np.testing.assert_array_equal(raster.covered, covered)
    np.testing.assert_array_equal(raster.interpolate(attrs), expected)
