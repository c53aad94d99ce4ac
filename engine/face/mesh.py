"""Face-mesh topology and the project's canonical neutral face (loaded once, read-only).

Topology (triangles, UVs, region contours) is MediaPipe's (Apache-2.0, see
engine/resources/mesh/LICENSE_SOURCES.md). The canonical neutral shape is our own, derived by
tools/derive_canonical_mesh.py from the bundled public-domain portraits.
Canonical axes follow the image: x right, y down, z away from the camera.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.paths import RESOURCES_DIR

MESH_DIR = RESOURCES_DIR / "mesh"
TOPOLOGY_FILE = MESH_DIR / "canonical_face_model.npz"
REGIONS_FILE = MESH_DIR / "regions.json"
CANONICAL_FILE = MESH_DIR / "canonical_neutral.npz"

# Points that move with the skull, not with expressions: forehead, nose bridge, eye
# corners, temples and cheekbones (MediaPipe's Procrustes set).
_RIGID_EXTRA: tuple[int, ...] = (168, 197, 195, 5, 151, 9, 8)


@dataclass(frozen=True)
class MeshTopology:
    triangles: NDArray[np.int32]  # T×3
    uv: NDArray[np.float32]  # 468×2, [0, 1], v down
    mp_vertices: NDArray[np.float32]  # MediaPipe canonical (for symmetry only)
    rigid_ids: NDArray[np.int64]
    rigid_weights: NDArray[np.float64]
    mirror: NDArray[np.int64]  # index of each point's left/right counterpart
    regions: dict[str, tuple[int, ...]]

    def region(self, name: str) -> NDArray[np.int64]:
        return np.asarray(self.regions[name], dtype=np.int64)


def _mirror_permutation(vertices: NDArray[np.float32]) -> NDArray[np.int64]:
    mirrored = vertices * np.array([-1.0, 1.0, 1.0], np.float32)
    d = np.linalg.norm(mirrored[:, None, :] - vertices[None, :, :], axis=2)
    perm = d.argmin(axis=1)
    if not np.array_equal(perm[perm], np.arange(len(perm))):
        raise ValueError("canonical mesh is not left/right symmetric")
    return perm.astype(np.int64)


@lru_cache(maxsize=1)
def topology() -> MeshTopology:
    data = np.load(TOPOLOGY_FILE)
    regions_raw = json.loads(REGIONS_FILE.read_text())
    regions = {k: tuple(int(i) for i in v) for k, v in regions_raw.items() if not k.startswith("_")}
    ids = data["procrustes_landmark_ids"].astype(np.int64)
    weights = data["procrustes_weights"].astype(np.float64)
    extra = np.array([i for i in _RIGID_EXTRA if i not in set(ids.tolist())], np.int64)
    rigid_ids = np.concatenate([ids, extra])
    rigid_weights = np.concatenate([weights, np.full(len(extra), float(np.median(weights)))])
    return MeshTopology(
        triangles=data["triangles"].astype(np.int32),
        uv=data["uv"].astype(np.float32),
        mp_vertices=data["vertices"].astype(np.float32),
        rigid_ids=rigid_ids,
        rigid_weights=rigid_weights / rigid_weights.sum(),
        mirror=_mirror_permutation(data["vertices"].astype(np.float32)),
        regions=regions,
    )


@lru_cache(maxsize=1)
def canonical_neutral() -> NDArray[np.float64]:
    """468×3 neutral face, unit inter-ocular distance, centred, frontal, image axes."""
    return np.load(CANONICAL_FILE)["vertices"].astype(np.float64)


@lru_cache(maxsize=1)
def inside_lips() -> NDArray[np.int64]:
    """Vertices enclosed by the outer lip contour of the neutral face (the lips)."""
    canon = canonical_neutral()
    contour = canon[topology().region("lips_outer"), :2].astype(np.float32)
    inside = [
        i
        for i, p in enumerate(canon[:, :2])
        if cv2.pointPolygonTest(contour, (float(p[0]), float(p[1])), False) >= 0
    ]
    return np.asarray(inside, dtype=np.int64)
