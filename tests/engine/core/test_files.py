"""Writing files all-or-nothing, outputs that are inputs, image headers and their size
limit, and images that are not 8-bit (engine.core.atomic, imagesize, imageio)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.atomic import AtomicFile, OutputPathError, check_output_path, write_bytes_atomic
from engine.core.imageio import ImageReadError, ImageWriteError, read_image, write_image
from engine.core.imagesize import MAX_FRAME_PIXELS, HeaderError, header_size

# --- atomic writes ------------------------------------------------------------------------


def test_an_atomic_file_appears_only_on_commit_with_ordinary_permissions(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "out.bin"
    with AtomicFile(path) as target:
        target.write_bytes(b"data")
        assert not path.exists() and target.temp.parent == path.parent
        target.commit()
    assert path.read_bytes() == b"data"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in path.parent.iterdir()] == ["out.bin"]


def test_a_failed_write_keeps_the_previous_file_and_removes_the_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"old")

    def full(self: AtomicFile, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(AtomicFile, "write_bytes", full)
    with pytest.raises(OSError, match="No space left"):
        write_bytes_atomic(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_an_image_that_cannot_be_written_leaves_no_part_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: AtomicFile, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(AtomicFile, "write_bytes", full)
    with pytest.raises(ImageWriteError, match="disk full"):
        write_image(tmp_path / "out.png", np.zeros((8, 8, 3), np.uint8))
    assert list(tmp_path.iterdir()) == []


def test_outputs_that_resolve_to_an_input_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "in.mp4"
    source.write_bytes(b"x")
    (tmp_path / "link.mp4").symlink_to(source)
    os.link(source, tmp_path / "hard.mp4")
    (tmp_path / "dir").mkdir()
    inputs = [("input", source)]
    for name in ("in.mp4", "link.mp4", "hard.mp4", "./dir/../in.mp4"):
        with pytest.raises(OutputPathError, match="is the input"):
            check_output_path(tmp_path / name, inputs)
    with pytest.raises(OutputPathError, match="is a folder"):
        check_output_path(tmp_path / "dir", inputs)
    check_output_path(tmp_path / "new.mp4", inputs)  # a new name is fine


# --- headers and the size limit -------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".webp", ".tif", ".ppm", ".pgm"])
def test_header_sizes_match_what_opencv_decodes(suffix: str) -> None:
    image = np.random.default_rng(0).integers(0, 255, (23, 37, 3), np.uint8)
    if suffix == ".pgm":
        image = image[:, :, 0]
    ok, encoded = cv2.imencode(suffix, image)
    assert ok
    assert header_size(encoded.tobytes()) == (37, 23)


def test_a_progressive_jpeg_with_exif_reports_its_frame_not_its_thumbnail() -> None:
    image = np.zeros((40, 90, 3), np.uint8)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    assert ok
    data = encoded.tobytes()
    # An APP1 segment holding bytes that look like a frame header of another size.
    fake_sof = b"\xff\xc0\x00\x11\x08\x00\x10\x00\x10"
    app1 = b"\xff\xe1" + (len(fake_sof) + 2).to_bytes(2, "big") + fake_sof
    assert header_size(data[:2] + app1 + data[2:]) == (90, 40)


def test_unknown_formats_and_damaged_headers() -> None:
    assert header_size(b"GIF89a....") is None
    with pytest.raises(HeaderError):
        header_size(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDX")
    with pytest.raises(HeaderError):
        header_size(b"\xff\xd8\xff\xda\x00\x02")  # image data before any frame header
    with pytest.raises(HeaderError):
        header_size(b"II*\x00\xff\xff\x00\x00")  # first directory past the end


def test_an_image_over_the_limit_is_refused_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huge.png"
    _, encoded = cv2.imencode(".png", np.zeros((4, 4, 3), np.uint8))
    data = bytearray(encoded.tobytes())
    data[16:24] = (40000).to_bytes(4, "big") * 2  # the header now says 40000×40000
    path.write_bytes(bytes(data))

    def no_decoding(*args: object) -> None:
        raise AssertionError("decoded despite the header")

    monkeypatch.setattr(cv2, "imdecode", no_decoding)
    with pytest.raises(ImageReadError, match="40000×40000 is 1600 megapixels"):
        read_image(path)
    assert MAX_FRAME_PIXELS == 50_000_000


def test_float_tiffs_are_read_as_0_to_1(tmp_path: Path) -> None:
    """The issue's case: a float32 TIFF target became black without a word."""
    ramp = np.linspace(0.0, 1.0, 64, dtype=np.float32)
    image = np.dstack([np.tile(ramp, (16, 1))] * 3)
    path = tmp_path / "float.tif"
    assert cv2.imwrite(str(path), image)
    frame = read_image(path)
    assert frame.dtype == np.uint8
    assert frame[0, 0, 0] == 0 and frame[0, -1, 0] == 255
    assert abs(int(frame[0, 32, 0]) - round(32 / 63 * 255)) <= 1
