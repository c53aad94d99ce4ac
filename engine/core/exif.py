"""The EXIF orientation tag (0x0112) of a JPEG, PNG, WebP or TIFF file, and turning the
pixels upright by it.

Phones store photos as the sensor saw them and say in this tag how to turn them for
display; every viewer does. OpenCV applies it only when it decodes to 8-bit colour
(IMREAD_COLOR), which would drop alpha and 16-bit depth, so the images read with
IMREAD_UNCHANGED are turned here. Only the tag is read: a few hundred bytes of the file's
metadata, located by each format's own framing, never the pixel data.
"""

from __future__ import annotations

import struct

import numpy as np

ORIENTATION_TAG = 0x0112
# What each value asks the viewer to do to the stored pixels (1: nothing).
TURNS = {
    2: "mirrored",
    3: "turned 180°",
    4: "flipped upside down",
    5: "mirrored and turned 90° anticlockwise",
    6: "turned 90° clockwise",
    7: "mirrored and turned 90° clockwise",
    8: "turned 90° anticlockwise",
}


def orientation(data: bytes) -> int:
    """The file's EXIF orientation, 1..8; 1 when it has none or the tag is damaged."""
    blob = _exif_blob(data)
    value = _tiff_orientation(blob) if blob else None
    return value if value in TURNS else 1


def upright(pixels: np.ndarray, value: int) -> np.ndarray:
    """`pixels` (H×W or H×W×C, any depth) as a viewer shows them for orientation `value`."""
    turned = {
        2: lambda a: a[:, ::-1],
        3: lambda a: a[::-1, ::-1],
        4: lambda a: a[::-1],
        5: lambda a: a.swapaxes(0, 1),
        6: lambda a: np.rot90(a, -1),
        7: lambda a: np.rot90(a, 1)[:, ::-1],
        8: lambda a: np.rot90(a, 1),
    }.get(value)
    return pixels if turned is None else np.ascontiguousarray(turned(pixels))


def _exif_blob(data: bytes) -> bytes | None:
    """The TIFF-structured EXIF block, wherever the format keeps it."""
    if data[:2] in (b"II", b"MM"):
        return data  # a TIFF's first directory holds the tag itself
    if data[:2] == b"\xff\xd8":
        return _jpeg_exif(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _chunk(data, 8, b"eXIf", big_endian=True, header=8)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _chunk(data, 12, b"EXIF", big_endian=False, header=8)
    return None


def _jpeg_exif(data: bytes) -> bytes | None:
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no metadata after
            return None
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        body = data[at + 4 : at + 2 + length]
        if marker == 0xE1 and body.startswith(b"Exif\x00\x00"):
            return body[6:]
        at += 2 + length
    return None


def _chunk(data: bytes, at: int, name: bytes, *, big_endian: bool, header: int) -> bytes | None:
    """PNG chunks (length, type, data, CRC) and RIFF chunks (type, length, data, pad)."""
    while at + header <= len(data):
        if big_endian:
            (length,), kind, skip = struct.unpack(">I", data[at : at + 4]), data[at + 4 : at + 8], 4
        else:
            kind, (length,), skip = data[at : at + 4], struct.unpack("<I", data[at + 4 : at + 8]), 0
        body = data[at + header : at + header + length]
        if kind == name:
            return body[6:] if body.startswith(b"Exif\x00\x00") else body
        at += header + length + skip + (0 if big_endian else length % 2)
    return None


def _tiff_orientation(blob: bytes) -> int | None:
    order = {b"II": "<", b"MM": ">"}.get(blob[:2])
    if order is None or len(blob) < 8:
        return None
    (first,) = struct.unpack(order + "I", blob[4:8])
    if first + 2 > len(blob):
        return None
    (count,) = struct.unpack(order + "H", blob[first : first + 2])
    for index in range(min(count, 512)):  # a real IFD0 has a few dozen entries
        entry = blob[first + 2 + 12 * index : first + 14 + 12 * index]
        if len(entry) < 12:
            return None
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag == ORIENTATION_TAG and kind == 3:  # SHORT, stored in the entry itself
            return int(struct.unpack(order + "H", entry[8:10])[0])
    return None
