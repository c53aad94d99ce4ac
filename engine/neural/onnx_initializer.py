"""Reading one initializer (a weight tensor) out of an ONNX file without the `onnx` package.

inswapper-style models keep the matrix that maps an ArcFace embedding to the model's
identity latent ("emap") as the graph's last initializer; onnxruntime does not expose
initializers, and `onnx` is a large dependency for one 512×512 matrix. ONNX files are
protobuf, whose wire format is small and stable, so this walks it directly over a memory
map: only the wanted tensor's bytes are copied, never the whole (500 MB) file.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.models.errors import SignatureError

# Field numbers from onnx.proto (ModelProto.graph, GraphProto.initializer, TensorProto.*).
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_T_DIMS, _T_DATA_TYPE, _T_FLOAT_DATA, _T_INT32_DATA = 1, 2, 4, 5
_T_NAME, _T_RAW_DATA, _T_DATA_LOCATION = 8, 9, 14
_FLOAT, _FLOAT16, _DOUBLE = 1, 10, 11
_DTYPES: dict[int, np.dtype[np.floating]] = {
    _FLOAT: np.dtype("<f4"),
    _FLOAT16: np.dtype("<f2"),
    _DOUBLE: np.dtype("<f8"),
}

_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5


class _Malformed(ValueError):
    pass


def _varint(buf: memoryview, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _Malformed("truncated varint")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


_MAX_FIELD = (1 << 29) - 1  # protobuf's largest field number


def _fields(buf: memoryview, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, value start, value end or the varint's value).

    Stops at the first impossible key: protobuf has no field number 0 (nor one past
    2**29 - 1), so a file zeroed in place (a crash, a bad copy) fails at its first byte
    instead of being walked two bytes at a time through hundreds of megabytes."""
    pos = start
    while pos < end:
        at = pos
        key, pos = _varint(buf, pos, end)
        field, wire = key >> 3, key & 7
        if not 0 < field <= _MAX_FIELD:
            raise _Malformed(f"field number {field} at byte {at}: not an ONNX (protobuf) file")
        if wire == _VARINT:
            value, pos = _varint(buf, pos, end)
            yield field, wire, pos, value
        elif wire == _LENGTH:
            length, pos = _varint(buf, pos, end)
            if pos + length > end:
                raise _Malformed("length runs past the end")
            yield field, wire, pos, pos + length
            pos += length
        elif wire in (_FIXED64, _FIXED32):
            size = 8 if wire == _FIXED64 else 4
            yield field, wire, pos, pos + size
            pos += size
        else:
            raise _Malformed(f"unsupported wire type {wire}")


def _packed_varints(buf: memoryview, start: int, end: int) -> list[int]:
    values, pos = [], start
    while pos < end:
        value, pos = _varint(buf, pos, end)
        values.append(value)
    return values


@dataclass(slots=True)
class _TensorFields:
    """The TensorProto fields an initializer's value is rebuilt from."""

    dims: list[int] = field(default_factory=list)
    data_type: int = 0
    name: str = ""
    raw: bytes | None = None
    floats: list[bytes] = field(default_factory=list)
    int32s: list[int] = field(default_factory=list)


def _tensor_fields(buf: memoryview, start: int, end: int) -> _TensorFields:
    out = _TensorFields()
    for tag, wire, a, b in _fields(buf, start, end):
        if tag == _T_DIMS:
            out.dims.extend([b] if wire == _VARINT else _packed_varints(buf, a, b))
        elif tag == _T_DATA_TYPE and wire == _VARINT:
            out.data_type = b
        elif tag == _T_NAME and wire == _LENGTH:
            out.name = bytes(buf[a:b]).decode("utf-8", "replace")
        elif tag == _T_RAW_DATA and wire == _LENGTH:
            out.raw = bytes(buf[a:b])
        elif tag == _T_FLOAT_DATA:
            out.floats.append(bytes(buf[a:b]))
        elif tag == _T_INT32_DATA:
            out.int32s.extend([b] if wire == _VARINT else _packed_varints(buf, a, b))
        elif tag == _T_DATA_LOCATION and wire == _VARINT and b == 1:
            raise _Malformed(f"initializer {out.name or '?'} is stored in an external data file")
    return out


def _tensor(buf: memoryview, start: int, end: int) -> tuple[str, NDArray[np.float32]]:
    tensor = _tensor_fields(buf, start, end)
    name, data_type = tensor.name, tensor.data_type
    if data_type not in _DTYPES:
        raise _Malformed(f"initializer {name!r} has data type {data_type}, not a float type")
    if tensor.raw is not None:
        array = np.frombuffer(tensor.raw, dtype=_DTYPES[data_type])
    elif data_type == _FLOAT:
        array = np.frombuffer(b"".join(tensor.floats), dtype="<f4")
    elif data_type == _FLOAT16:
        # ONNX stores float16 values as their bit patterns in int32_data.
        array = np.asarray(tensor.int32s, dtype=np.uint16).view("<f2")
    else:
        raise _Malformed(f"initializer {name!r}: double values outside raw_data")
    dims = tensor.dims
    count = int(np.prod(dims)) if dims else 1
    if array.size != count:
        raise _Malformed(f"initializer {name!r}: {array.size} values for shape {dims}")
    return name, array.astype(np.float32).reshape(dims)


def read_last_initializer(path: Path) -> tuple[str, NDArray[np.float32]]:
    """Name and float32 value of the graph's last initializer (file order, as onnx lists it)."""
    try:
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as m:
            buf = memoryview(m)
            try:
                graphs = [
                    (a, b)
                    for f, w, a, b in _fields(buf, 0, len(buf))
                    if f == _MODEL_GRAPH and w == _LENGTH
                ]
                if not graphs:
                    raise _Malformed("no graph")
                last: tuple[int, int] | None = None
                for field, wire, a, b in _fields(buf, *graphs[-1]):
                    if field == _GRAPH_INITIALIZER and wire == _LENGTH:
                        last = (a, b)
                if last is None:
                    raise _Malformed("the graph has no initializers")
                return _tensor(buf, *last)
            finally:
                buf.release()
    except (OSError, ValueError, BufferError) as exc:
        raise SignatureError(f"{path.name}: cannot read its last initializer ({exc})") from None
