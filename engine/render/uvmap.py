"""The mesh's texture space: a static per-texel triangle map, built once per process."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.face.mesh import topology
from engine.render.raster import FixedRaster

TEXTURE_SIZE = 512


@dataclass(frozen=True)
class UvMap:
    size: int
    covered: NDArray[np.bool_]  # size×size, texels inside the face's texture area
    raster: FixedRaster  # the texture square's triangles, rasterised once

    def interpolate(self, attrs: NDArray[np.floating]) -> NDArray[np.float32]:
        """Per-vertex attributes (468×C) spread over texture space (size×size×C)."""
        return self.raster.interpolate(attrs)


@lru_cache(maxsize=1)
def texture_iod() -> float:
    """The inter-ocular distance in the texture square (0..1): eye centroid to centroid."""
    topo = topology()
    left = topo.uv[topo.region("left_eye")].mean(axis=0)
    right = topo.uv[topo.region("right_eye")].mean(axis=0)
    return float(np.linalg.norm(left - right))


@lru_cache(maxsize=2)
def uv_map(size: int = TEXTURE_SIZE) -> UvMap:
    topo = topology()
    raster = FixedRaster(topo.uv * size, np.zeros(len(topo.uv)), topo.triangles, (size, size))
    return UvMap(size, raster.covered, raster)


def fill_outside(texture: NDArray[np.float32], covered: NDArray[np.bool_]) -> NDArray[np.float32]:
    """Extend the texture past its covered area (pull from ever-blurrier copies), so that
    bilinear sampling at triangle edges never picks up black."""
    out = texture.copy()
    weight = covered.astype(np.float32)
    acc = texture * weight[..., None]
    missing = ~covered
    for sigma in (2, 6, 18, 54):
        w = cv2.GaussianBlur(weight, (0, 0), sigma)
        a = cv2.GaussianBlur(acc, (0, 0), sigma)
        ok = missing & (w > 1e-3)
        out[ok] = a[ok] / w[ok][:, None]
        missing &= ~ok
    return out
