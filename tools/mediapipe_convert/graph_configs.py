"""MediaPipe graph configs read out of the wheel's native library, and the calculator
options of their nodes."""

from __future__ import annotations

import re
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    # The attention mesh's refinement: where the 71 eye points of the iris model's layout
    # go in the 468-mesh (the iris graphs themselves are not in the library).
    "TensorsToFaceLandmarksWithAttention",
)


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

    def options(self, graph_type: str, calculator: str, message: type[Any]) -> Any:
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

    def face_detection_options(self, wrapper: str, calculator: str, message: type[Any]) -> Any:
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
