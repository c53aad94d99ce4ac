"""Images are read upright: the EXIF orientation tag of real files written here (a JPEG
APP1 block, a PNG eXIf chunk) turns the pixels as OpenCV's own colour decoder does."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.exif import orientation
from engine.core.imageio import read_picture


def tiff_orientation(value: int) -> bytes:
    """A big-endian TIFF block with one IFD0 entry: Orientation (SHORT) = value."""
    entry = struct.pack(">HHIHH", 0x0112, 3, 1, value, 0)
    return b"MM\x00*" + struct.pack(">I", 8) + struct.pack(">H", 1) + entry + b"\x00" * 4


def jpeg_with_orientation(pixels: np.ndarray, value: int) -> bytes:
    ok, encoded = cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    body = b"Exif\x00\x00" + tiff_orientation(value)
    app1 = b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
    data = encoded.tobytes()
    return data[:2] + app1 + data[2:]


def png_with_orientation(pixels: np.ndarray, value: int) -> bytes:
    ok, encoded = cv2.imencode(".png", pixels)
    assert ok
    data = encoded.tobytes()
    body = tiff_orientation(value)
    chunk = struct.pack(">I", len(body)) + b"eXIf" + body + b"\x00\x00\x00\x00"  # CRC unread
    return data[:33] + chunk + data[33:]  # after the 8-byte signature and the IHDR chunk


def asymmetric(height: int = 40, width: int = 60) -> np.ndarray:
    """No two orientations of it look alike: a gradient with one bright corner."""
    ys, xs = np.mgrid[0:height, 0:width]
    image = np.dstack([xs * 4, ys * 6, np.full_like(xs, 90)]).astype(np.uint8)
    image[:8, :12] = 255
    return image


@pytest.mark.parametrize("value", range(1, 9))
def test_a_jpeg_is_turned_as_opencvs_colour_decoder_turns_it(tmp_path: Path, value: int) -> None:
    data = jpeg_with_orientation(asymmetric(), value)
    path = tmp_path / "photo.jpg"
    path.write_bytes(data)
    assert orientation(data) == value
    expected = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)  # applies EXIF
    picture = read_picture(path)
    assert picture.orientation == value
    assert picture.frame.shape == expected.shape
    assert np.array_equal(picture.frame, expected)


def test_a_png_keeps_alpha_and_is_turned_by_its_exif_chunk(tmp_path: Path) -> None:
    bgra = np.dstack([asymmetric(), np.arange(40 * 60, dtype=np.uint16).reshape(40, 60) % 256])
    path = tmp_path / "sticker.png"
    path.write_bytes(png_with_orientation(bgra.astype(np.uint8), 6))
    picture = read_picture(path)
    assert picture.orientation == 6
    assert np.array_equal(picture.pixels, np.rot90(bgra.astype(np.uint8), -1))  # clockwise
    assert picture.alpha is not None and picture.alpha.shape == (60, 40)


def test_damaged_or_missing_tags_leave_the_image_as_stored() -> None:
    plain = cv2.imencode(".jpg", asymmetric())[1].tobytes()
    assert orientation(plain) == 1
    cut = jpeg_with_orientation(asymmetric(), 6)[:30]  # the block ends inside the entry
    assert orientation(cut) == 1
    assert orientation(jpeg_with_orientation(asymmetric(), 42)) == 1  # not a valid value
    assert orientation(b"") == 1
