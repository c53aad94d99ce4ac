"""The manifest: one entry per converted model (input spec, outputs, graph options,
provenance), merged into ``manifest.json`` by name."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .anchors import generate_anchors
from .specs import LICENCE, NOTICE, ModelSpec


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _shape(value: Any) -> list[int | str]:
    """A graph input's or output's shape; a dynamic dimension by its name ("batch")."""
    return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]


def manifest_entry(
    spec: ModelSpec,
    proto: Any,
    model_bytes: bytes,
    tflite_bytes: bytes,
    source: str,
    info: dict[str, Any],
    conversion: dict[str, int],
) -> dict[str, Any]:
    """The entry for ``proto`` (serialized as ``model_bytes``), before verification.

    A detector's anchor options must give exactly one anchor per box the model outputs.
    """
    graph_in = proto.graph.input[0]
    in_shape = _shape(graph_in)
    lo, hi = info["image_to_tensor"]["output_tensor_float_range"]
    entry: dict[str, Any] = {
        "name": spec.name,
        "file": f"{spec.name}.onnx",
        "sha256": sha256_bytes(model_bytes),
        "size_bytes": len(model_bytes),
        "bundled": True,
        "urls": [],
        "source": source,
        "source_sha256": sha256_bytes(tflite_bytes),
        "licence": LICENCE,
        "notice": NOTICE,
        "input": {
            "name": graph_in.name,
            "shape": in_shape,
            "layout": "NHWC",
            "dtype": "float32",
            "range": [lo, hi],
            "channel_order": "RGB",
        },
        "outputs": [
            {
                "name": o.name,
                "shape": _shape(o),
                "description": spec.output_notes.get(o.name, ""),
            }
            for o in proto.graph.output
        ],
        "preprocessing": spec.preprocessing,
        "image_to_tensor": info["image_to_tensor"],
        "mediapipe_graph": info["graph"],
        "conversion": {**conversion, **spec.extra},
    }
    for key in ("anchors", "postprocessing", "eye_crop", "refinement"):
        if key in info:
            entry[key] = info[key]
    if "anchors" in entry:
        n_anchors = len(generate_anchors(entry["anchors"]))
        n_boxes = entry["outputs"][0]["shape"][1]
        if not n_anchors == entry["anchors"]["num_boxes"] == n_boxes:
            raise AssertionError(
                f"{spec.name}: {n_anchors} anchors, "
                f"num_boxes {entry['anchors']['num_boxes']}, model {n_boxes}"
            )
    return entry


def write_manifest(path: Path, new_entries: list[dict[str, Any]]) -> None:
    """Merge ``new_entries`` into ``manifest.json`` by name, keeping other models' entries."""
    manifest: dict[str, Any] = {"models": []}
    if path.exists():
        manifest = json.loads(path.read_text(encoding="utf-8"))
    names = {e["name"] for e in new_entries}
    kept = [e for e in manifest.get("models", []) if e.get("name") not in names]
    manifest["models"] = kept + new_entries
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
