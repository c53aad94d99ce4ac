"""`fusecam swap` on photos as phones and editors write them (files made here from the
bundled portrait): a JPEG stored sideways with EXIF orientation 6 comes out upright and
the command says so; a 16-bit PNG with transparency keeps both in a PNG, and a JPEG
output says what it dropped."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from engine.core.paths import SAMPLE_FACES_DIR
from engine.watermark.embed import max_change
from tests.app.cli.test_cli import run_fusecam
from tests.engine.core.test_exif import jpeg_with_orientation

SOURCE = SAMPLE_FACES_DIR / "astronaut_eileen_collins.png"
TARGET = SAMPLE_FACES_DIR / "grace_hopper.jpg"


def swap(tmp_path: Path, target: Path, output: Path, *flags: str) -> str:
    args = ["swap", "--source", str(SOURCE), "--target", str(target), "--output", str(output)]
    args += flags
    done = run_fusecam(args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_a_sideways_phone_photo_comes_out_upright(tmp_path: Path) -> None:
    upright = cv2.imread(str(TARGET))
    stored = np.rot90(upright, 1)  # the sensor's view: a viewer turns it 90° clockwise
    target = tmp_path / "phone.jpg"
    target.write_bytes(jpeg_with_orientation(np.ascontiguousarray(stored), 6))
    log = swap(tmp_path, target, tmp_path / "out.jpg")
    out = cv2.imread(str(tmp_path / "out.jpg"), cv2.IMREAD_UNCHANGED)
    assert out.shape == upright.shape  # portrait, as the phone showed it
    assert "EXIF orientation was applied (turned 90° clockwise)" in log
    assert "stored upright" in log
    assert "no face found" not in log  # the face was found the right way up
    # Written upright with no tag left to turn it again: any reader sees it the same.
    assert cv2.imread(str(tmp_path / "out.jpg")).shape == upright.shape


def deep_transparent_target(tmp_path: Path) -> tuple[Path, np.ndarray]:
    colour = cv2.imread(str(TARGET)).astype(np.uint16) * 257
    colour += np.arange(colour.shape[1], dtype=np.uint16)[None, :, None] % 200  # low bits
    height, width = colour.shape[:2]
    alpha = np.full((height, width), 65535, np.uint16)
    alpha[:, : width // 8] = 0  # a transparent strip at the left edge
    alpha[: height // 10] = 30000
    pixels = np.dstack([colour, alpha])
    path = tmp_path / "deep.png"
    assert cv2.imwrite(str(path), pixels)
    return path, pixels


def test_a_16_bit_png_with_alpha_keeps_both_in_a_png(tmp_path: Path) -> None:
    target, pixels = deep_transparent_target(tmp_path)
    log = swap(tmp_path, target, tmp_path / "out.png", "--no-label")
    out = cv2.imread(str(tmp_path / "out.png"), cv2.IMREAD_UNCHANGED)
    assert out.dtype == np.uint16 and out.shape == pixels.shape
    assert np.array_equal(out[:, :, 3], pixels[:, :, 3])  # the transparency as it was
    # Where the swap changed nothing (the corners, far from the face) the 16 bits are
    # kept but for the invisible watermark's few 8-bit levels (each 257 in 16 bits).
    moved = np.abs(out[-20:, -20:].astype(np.int32) - pixels[-20:, -20:])
    assert moved.max() <= max_change() * 257
    assert (moved % 257 == 0).all()
    assert not np.array_equal(out[:, :, :3], pixels[:, :, :3])  # and the face was swapped
    assert "dropped" not in log and "8 bits" not in log


def test_a_jpeg_output_says_what_it_could_not_keep(tmp_path: Path) -> None:
    target, _ = deep_transparent_target(tmp_path)
    log = swap(tmp_path, target, tmp_path / "out.jpg")
    assert "the target's transparency was dropped: .jpg cannot hold it" in log
    assert "the target's 16-bit pixels were written as 8 bits: .jpg cannot hold more" in log
    out = cv2.imread(str(tmp_path / "out.jpg"), cv2.IMREAD_UNCHANGED)
    assert out.dtype == np.uint8 and out.shape[2] == 3
