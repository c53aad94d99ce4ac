"""The one-pass add (engine.watermark.add) marks frames with the same pixels as the two
saturating OpenCV passes over (positive, negative) 3-channel planes it replaced, on real
frames of ../shared/testdata (video at the live size, photos of ragged sizes) and on
frames whose pixels sit at 0 and 255, where the add saturates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.types import Frame
from engine.watermark.add import add_delta
from engine.watermark.embed import Watermarker, block_amplitudes
from engine.watermark.pattern import TILE_PX, chip_values, render
from engine.watermark.payload import encode, today_payload
from engine.watermark.texture import BLOCK_PX, block_levels
from tests.conftest import REPO_ROOT

TESTDATA = REPO_ROOT.parent / "shared" / "testdata"
DAY = dt.date(2026, 12, 3)


def two_pass_mark(frame: Frame, day: dt.date) -> Frame:
    """The mark as it was made before the one-pass add: each block's pattern at its
    amplitude split into positive and negative 3-channel uint8 planes, added and then
    subtracted with OpenCV's saturating passes."""
    height, width = frame.shape[:2]
    amplitudes = block_amplitudes(block_levels(frame))
    per_pixel = np.repeat(np.repeat(amplitudes, BLOCK_PX, axis=0), BLOCK_PX, axis=1)
    tile = render(chip_values(encode(today_payload(day))))
    reps = (-(-height // TILE_PX), -(-width // TILE_PX))
    pattern = np.tile(tile, reps)[:height, :width]
    full = np.rint(pattern * per_pixel[:height, :width]).astype(np.int16)
    pos = np.clip(full, 0, 255).astype(np.uint8)
    neg = np.clip(-full, 0, 255).astype(np.uint8)
    added = cv2.add(frame, cv2.merge([pos, pos, pos]))
    return cv2.subtract(added, cv2.merge([neg, neg, neg]))


def video_frames(path: Path, count: int) -> Iterator[Frame]:
    capture = cv2.VideoCapture(str(path))
    try:
        for _ in range(count):
            ok, frame = capture.read()
            if not ok:
                return
            yield cv2.resize(frame, (1280, 720))
    finally:
        capture.release()


def photos() -> list[Path]:
    paths = sorted(SAMPLE_FACES_DIR.glob("*.jpg")) + sorted(SAMPLE_FACES_DIR.glob("*.png"))
    if TESTDATA.is_dir():
        paths += sorted(p for p in TESTDATA.rglob("*") if p.suffix.lower() in (".jpg", ".png"))
    return paths


def test_video_frames_are_marked_as_the_two_passes_marked_them() -> None:
    """One marker over consecutive frames, so the plane's blocks are rewritten from
    frame to frame as the picture's texture changes."""
    videos = sorted((TESTDATA / "video").glob("*.mp4")) if TESTDATA.is_dir() else []
    if not videos:
        pytest.skip("no test videos in ../shared/testdata/video")
    marker = Watermarker()
    checked = changed = 0
    for video in videos:
        for frame in video_frames(video, 40):
            marked = marker.mark(frame, DAY)
            diff = np.abs(marked.astype(np.int16) - two_pass_mark(frame, DAY)).max()
            assert diff == 0, f"{video.name}: frame {checked} differs by {diff}"
            changed += int((marked != frame).any())
            checked += 1
    assert checked >= 40
    assert changed == checked  # every frame has texture for the mark


def test_photos_of_every_size_are_marked_as_the_two_passes_marked_them() -> None:
    marker = Watermarker()
    paths = photos()
    assert paths
    for path in paths:
        frame = read_image(path)
        marked = marker.mark(frame, DAY)
        assert marked.shape == frame.shape
        diff = np.abs(marked.astype(np.int16) - two_pass_mark(frame, DAY)).max()
        assert diff == 0, f"{path.name} {frame.shape}: differs by {diff}"


def test_saturated_pixels_clip_as_the_two_passes_clipped_them() -> None:
    """Busy texture (so the mark is at its strongest) made only of levels near 0 and
    255: the add clips at both ends."""
    rng = np.random.default_rng(7)
    frame = np.where(rng.random((720, 1280, 3)) < 0.5, 1, 254).astype(np.uint8)
    marked = Watermarker().mark(frame, DAY)
    assert np.array_equal(marked, two_pass_mark(frame, DAY))
    assert marked.min() == 0 and marked.max() == 255  # it did clip


def test_a_read_only_or_non_contiguous_frame_is_marked_and_left_alone() -> None:
    """The engine publishes its frames read-only; a view (a crop, a mirror) is not
    contiguous."""
    base = cv2.resize(read_image(SAMPLE_FACES_DIR / "grace_hopper.jpg"), (1300, 740))
    for frame in (base[10:730, 7:1287], base[:, ::-1]):
        before = frame.copy()
        frame.flags.writeable = False
        marked = Watermarker().mark(frame, DAY)
        assert np.array_equal(marked, two_pass_mark(np.ascontiguousarray(frame), DAY))
        assert np.array_equal(frame, before)


def test_the_add_saturates_every_value_and_delta() -> None:
    values = np.arange(256, dtype=np.uint8)
    deltas = np.arange(-128, 128, dtype=np.int16)
    rows = np.repeat(np.repeat(values[:, None], 256, axis=1), 3, axis=1)  # 256 × 768
    delta = np.broadcast_to(deltas, (256, 256)).astype(np.int8)
    out = np.empty_like(rows)
    add_delta(rows, delta, out)
    expected = np.clip(values[:, None].astype(np.int16) + deltas[None, :], 0, 255)
    assert np.array_equal(out, np.repeat(expected, 3, axis=1).astype(np.uint8))
