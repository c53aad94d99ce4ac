"""Converting the models: densify if sparse, tf2onnx, the ONNX passes and the provenance
metadata, then the model's manifest entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .graph_configs import GraphConfigs
from .manifest import manifest_entry, sha256_bytes
from .onnx_passes import canonicalize_names, compact_float16_weights, dynamic_batch
from .specs import LICENCE, NOTICE, ModelSpec
from .tflite_dense import densify_tflite

# (manifest entries, ONNX bytes, .tflite sources, why optional ones were skipped), by name.
Converted = tuple[dict[str, dict[str, Any]], dict[str, bytes], dict[str, Path], dict[str, str]]


def convert_one(
    spec: ModelSpec,
    mp_dir: Path,
    provenance: str,
    graphs: GraphConfigs,
    opset: int,
    work: Path,
) -> tuple[bytes, dict[str, Any], Path]:
    """Convert one model; return (onnx bytes, manifest entry without checks, tflite path)."""
    import onnx
    import tf2onnx
    import tf2onnx.convert

    src = mp_dir / spec.tflite
    tflite_bytes = src.read_bytes()
    to_convert = src
    densified = 0
    if b"DENSIFY" in tflite_bytes or "sparse" in src.name:
        to_convert = work / f"{spec.name}.dense.tflite"
        densified = densify_tflite(src, to_convert)
    proto, _ = tf2onnx.convert.from_tflite(str(to_convert), opset=opset)
    canonicalize_names(proto)
    fp16 = compact_float16_weights(proto)
    if spec.dynamic_batch:
        dynamic_batch(proto)
    source = (
        f"{provenance} wheel, mediapipe/{spec.tflite}, converted by "
        f"tools/convert_mediapipe_models.py (tf2onnx {tf2onnx.__version__}, opset {opset})"
    )
    for key, value in {
        "source": source,
        "source_sha256": sha256_bytes(tflite_bytes),
        "licence": LICENCE,
        "notice": NOTICE,
    }.items():
        prop = proto.metadata_props.add()
        prop.key, prop.value = key, value
    proto.producer_name = "fusecam/tools/convert_mediapipe_models.py"
    onnx.checker.check_model(proto)
    model_bytes = proto.SerializeToString()
    conversion = {"densified_sparse_ops": densified, "float16_weight_initializers": fp16}
    entry = manifest_entry(
        spec, proto, model_bytes, tflite_bytes, source, spec.graph_info(graphs), conversion
    )
    return model_bytes, entry, src


def convert_all(
    specs: list[ModelSpec],
    mp_dir: Path,
    provenance: str,
    graphs: GraphConfigs,
    opset: int,
    work: Path,
) -> Converted:
    """Convert ``specs`` in order; an optional model that fails is skipped with the reason."""
    entries: dict[str, dict[str, Any]] = {}
    models: dict[str, bytes] = {}
    sources: dict[str, Path] = {}
    failures: dict[str, str] = {}
    for spec in specs:
        print(f"converting {spec.name} <- {spec.tflite}")
        try:
            models[spec.name], entries[spec.name], sources[spec.name] = convert_one(
                spec, mp_dir, provenance, graphs, opset, work
            )
        except Exception as exc:
            if not spec.optional:
                raise
            failures[spec.name] = f"{type(exc).__name__}: {exc}"
            print(f"  SKIPPED: {failures[spec.name]}")
    return entries, models, sources, failures
