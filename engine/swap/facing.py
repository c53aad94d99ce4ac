"""The target mesh's vertex normals as one compiled pass (numba), once a frame for the
light field's texel weights (how squarely the camera sees each vertex: `facing`) and the
light over the face's form (engine/swap/form_light.py).

engine/face/fit.vertex_normals costs 0.1-0.3 ms a frame for 468 points on the 2-core
machine, nearly all of it NumPy's calls on small arrays; `unit_normals` is the same
arithmetic in the same order (the triangles' cross products in float32, their sums into
the corners in float64 in bincount's order, the lengths in float32), so the same bits,
in 0.01 ms.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from engine.core.types import F32


@njit(cache=True, nogil=True)
def unit_normals(points: F32, triangles: NDArray[np.int32]) -> F32:  # pragma: no cover - compiled
    """N×3: each vertex of `points` (N×3, float32) its area-weighted unit normal, with
    vertex_normals' bits."""
    count = points.shape[0]
    sums = np.zeros((count, 3), np.float64)
    # bincount adds the first corners of every triangle, then the second, then the third.
    for corner in range(3):
        for t in range(triangles.shape[0]):
            a, b, c = triangles[t, 0], triangles[t, 1], triangles[t, 2]
            e1x = points[b, 0] - points[a, 0]
            e1y = points[b, 1] - points[a, 1]
            e1z = points[b, 2] - points[a, 2]
            e2x = points[c, 0] - points[a, 0]
            e2y = points[c, 1] - points[a, 1]
            e2z = points[c, 2] - points[a, 2]
            i = triangles[t, corner]
            sums[i, 0] += np.float64(e1y * e2z - e1z * e2y)
            sums[i, 1] += np.float64(e1z * e2x - e1x * e2z)
            sums[i, 2] += np.float64(e1x * e2y - e1y * e2x)
    out = np.empty((count, 3), np.float32)
    for i in range(count):
        x = np.float32(sums[i, 0])
        y = np.float32(sums[i, 1])
        z = np.float32(sums[i, 2])
        length = max(np.sqrt(x * x + y * y + z * z), np.float32(1e-9))
        out[i, 0] = x / length
        out[i, 1] = y / length
        out[i, 2] = z / length
    return out


def facing(normals: F32) -> F32:
    """0..1 per vertex: the z of its unit normal (`unit_normals`), negated (towards the
    camera), clipped at 0."""
    return np.clip(-normals[:, 2], np.float32(0.0), np.float32(1.0))
