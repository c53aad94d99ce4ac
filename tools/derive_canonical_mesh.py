"""Dev-time: derive the canonical neutral face from the bundled public-domain portraits.

Runs the project's own detector and mesh on engine/resources/faces/*, adds each face's exact
mirror image (through the mesh's left/right permutation), aligns them all by generalised
Procrustes, symmetrises the mean, rotates it upright (symmetry plane = x = 0, eye line
along x) and scales it to unit inter-ocular distance.
Writes engine/resources/mesh/canonical_neutral.npz.
Run: .venv/bin/python tools/derive_canonical_mesh.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from engine.core.imageio import read_image
from engine.core.paths import SAMPLE_FACES_DIR
from engine.face.analyzer import FaceAnalyzer
from engine.face.mesh import CANONICAL_FILE, topology
from engine.face.procrustes import similarity

F64 = np.ndarray


def eye_centres(points: F64) -> tuple[F64, F64]:
    topo = topology()
    right = points[topo.region("right_eye")].mean(axis=0)
    left = points[topo.region("left_eye")].mean(axis=0)
    return right, left


def mirror(points: F64) -> F64:
    return points[topology().mirror] * np.array([-1.0, 1.0, 1.0])


def align(shape: F64, reference: F64) -> F64:
    topo = topology()
    ids = topo.rigid_ids
    s, r, t = similarity(shape[ids], reference[ids], topo.rigid_weights)
    return (s * shape @ r.T) + t


def upright(mean: F64) -> F64:
    """Rotate so the symmetry plane is x = 0 and the face looks along −z."""
    perm = topology().mirror
    diffs = mean - mean[perm]
    sign = np.sign(diffs[:, 0])[:, None]
    normal = (diffs * sign).sum(axis=0)
    x_axis = normal / np.linalg.norm(normal)
    right, left = eye_centres(mean)
    down = mean[152] - mean[10]  # forehead → chin
    y_axis = down - x_axis * (down @ x_axis)
    y_axis /= np.linalg.norm(y_axis)
    z_axis = np.cross(x_axis, y_axis)
    rot = np.stack([x_axis, y_axis, z_axis])
    out = (mean - mean.mean(axis=0)) @ rot.T
    right, left = eye_centres(out)
    out /= np.linalg.norm(left - right)
    out[:, 0] -= out[:, 0].mean()
    return out


def main() -> None:
    # The mesh's own lids: the iris model's refined lids follow a blink, which a rest
    # shape must not (and the shipped file was derived without them).
    analyzer = FaceAnalyzer.bundled(eyes=False)
    shapes = []
    sources = []
    for path in sorted(SAMPLE_FACES_DIR.iterdir()):
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            continue
        faces = analyzer.analyze_image(read_image(path))
        if not faces:
            raise SystemExit(f"{path}: no face found")
        lm = faces[0].landmarks.astype(np.float64)
        shapes += [lm, mirror(lm)]
        sources.append({"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    mean = shapes[0]
    for _ in range(10):
        aligned = [align(s, mean) for s in shapes]
        mean = np.mean(aligned, axis=0)
    for _ in range(5):  # exact left/right symmetry
        mean = (mean + align(mirror(mean), mean)) / 2
    canonical = upright(mean)
    np.savez_compressed(
        CANONICAL_FILE,
        vertices=canonical.astype(np.float32),
        provenance=np.array(json.dumps({"derived_from": sources, "script": Path(__file__).name})),
    )
    print(f"wrote {CANONICAL_FILE} from {len(sources)} portraits (+ mirrors)")


if __name__ == "__main__":
    main()
