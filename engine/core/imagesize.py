"""Image dimensions from the file header, before anything is decoded, and the frame-size
limit every input is held to.

A 1 MB PNG can declare 20000×20000 pixels (1.2 GB decoded, several times that while
the stages work on it); OpenCV would allocate first and fail, or succeed and take the
machine's memory. The header says the size in a few bytes, so a file over the limit is
refused before one pixel is decoded. Formats: those `engine.core.imageio` reads (PNG,
JPEG, BMP, WebP, TIFF) and PNM.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

# 50 megapixels: above every phone and most camera sensors (48 MP), far below what
# would exhaust memory (a 50 MP BGR frame is 150 MB; the stages hold a few copies).
MAX_FRAME_PIXELS = 50_000_000


class FrameSizeError(ValueError):
    """A frame or image larger than MAX_FRAME_PIXELS (or smaller than 1×1)."""


def check_frame_size(width: int, height: int, what: str) -> None:
    """Raise FrameSizeError naming `what` when width×height is empty or over the limit."""
    if width < 1 or height < 1:
        raise FrameSizeError(f"{what}: {width}×{height} is not a valid size")
    if width * height > MAX_FRAME_PIXELS:
        raise FrameSizeError(
            f"{what}: {width}×{height} is {width * height / 1e6:.0f} megapixels; "
            f"Fusecam handles at most {MAX_FRAME_PIXELS / 1e6:.0f} (scale it down first)"
        )


class HeaderError(ValueError):
    """The file starts like a known format but its header is cut short or damaged."""


def _png(data: bytes) -> tuple[int, int]:
    if data[12:16] != b"IHDR" or len(data) < 24:
        raise HeaderError("PNG without an IHDR header")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# Start-of-frame markers (baseline, progressive, lossless, arithmetic …); not DHT/JPG/DAC.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes) -> tuple[int, int]:
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise HeaderError("JPEG segment without a marker")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # no length field
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if marker in _SOF:
            if pos + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        if marker == 0xDA or length < 2:  # image data before any frame header
            break
        pos += 2 + length
    raise HeaderError("JPEG without a frame header")


def _bmp(data: bytes) -> tuple[int, int]:
    if len(data) < 26:
        raise HeaderError("BMP header cut short")
    (header_size,) = struct.unpack("<I", data[14:18])
    if header_size == 12:  # OS/2 BITMAPCOREHEADER
        width, height = struct.unpack("<HH", data[18:22])
        return width, height
    width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)  # negative height: rows stored top-down


def _webp(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    raise HeaderError("WebP without a known image chunk")


# TIFF field types that can hold a width or height: SHORT, LONG, LONG8 (BigTIFF).
_TIFF_INTEGERS = {3: "H", 4: "I", 16: "Q"}


def _tiff(data: bytes) -> tuple[int, int]:
    """Width and height of the first page (the one OpenCV decodes)."""
    order = "<" if data[:2] == b"II" else ">"
    big = struct.unpack_from(order + "H", data, 2)[0] == 43  # BigTIFF
    count_fmt, entry_fmt = (order + "Q", order + "HHQ") if big else (order + "H", order + "HHI")
    entry_size = struct.calcsize(entry_fmt) + (8 if big else 4)  # + the value field
    found: dict[int, int] = {}
    try:
        (ifd,) = struct.unpack_from(order + ("Q" if big else "I"), data, 8 if big else 4)
        (count,) = struct.unpack_from(count_fmt, data, ifd)
        first = ifd + struct.calcsize(count_fmt)
        for at in range(first, first + min(count, 4096) * entry_size, entry_size):
            tag, kind, _ = struct.unpack_from(entry_fmt, data, at)
            if tag in (256, 257):  # ImageWidth, ImageLength
                fmt = _TIFF_INTEGERS.get(kind)
                if fmt is None:
                    raise HeaderError(f"TIFF size field of type {kind}")
                (found[tag],) = struct.unpack_from(
                    order + fmt, data, at + struct.calcsize(entry_fmt)
                )
    except struct.error as exc:
        raise HeaderError("TIFF header cut short") from exc
    if 256 not in found or 257 not in found:
        raise HeaderError("TIFF without a width and height")
    return found[256], found[257]


def _pnm(data: bytes) -> tuple[int, int]:
    tokens: list[int] = []
    pos = 2
    while len(tokens) < 2 and pos < min(len(data), 4096):
        char = data[pos : pos + 1]
        if char == b"#":
            end = data.find(b"\n", pos)
            pos = len(data) if end < 0 else end + 1
        elif char.isdigit():
            start = pos
            while pos < len(data) and data[pos : pos + 1].isdigit():
                pos += 1
            tokens.append(int(data[start:pos]))
        else:
            pos += 1
    if len(tokens) < 2:
        raise HeaderError("PNM header cut short")
    return tokens[0], tokens[1]


def _is_tiff(data: bytes) -> bool:
    return data[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")


def _is_pnm(data: bytes) -> bool:
    return len(data) > 2 and data[0:1] == b"P" and data[1:2] in b"123456"


_PARSERS: tuple[tuple[Callable[[bytes], bool], Callable[[bytes], tuple[int, int]]], ...] = (
    (lambda d: d.startswith(b"\x89PNG\r\n\x1a\n"), _png),
    (lambda d: d.startswith(b"\xff\xd8"), _jpeg),
    (lambda d: d.startswith(b"BM"), _bmp),
    (lambda d: d.startswith(b"RIFF") and d[8:12] == b"WEBP", _webp),
    (_is_tiff, _tiff),
    (_is_pnm, _pnm),
)


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) declared by an image's header; None for a format not known here.
    Raises HeaderError when the file starts like a known format but its header is bad."""
    for matches, parse in _PARSERS:
        if matches(data):
            return parse(data)
    return None
