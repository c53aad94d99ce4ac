"""The watermark: marked frames are found after every attack the targets name, unmarked
pictures are not, the mark stays out of sight (PSNR, flat areas untouched), and the
payload reads back. Real pictures: the bundled public-domain portraits, and every photo
of ../shared/testdata when it exists. Robustness over the whole test data is measured
by tools/watermark_eval.py (docs/watermark.md), not here."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.types import Frame
from engine.watermark.attacks import ATTACKS, h264
from engine.watermark.detect import SWEEP_THRESHOLD, THRESHOLD, detect, luma, whiten
from engine.watermark.embed import AMPLITUDE, MSE_BUDGET, Watermarker, busy_amplitude, max_change
from engine.watermark.payload import Payload, decode_soft, encode, today_payload
from engine.watermark.scale import MAX_SCALE, MIN_SCALE, scale_candidates
from engine.watermark.texture import block_levels
from tests.conftest import REPO_ROOT

TESTDATA = REPO_ROOT.parent / "shared" / "testdata"
DAY = dt.date(2026, 12, 2)


def portrait() -> Frame:
    return read_image(SAMPLE_FACES_DIR / "grace_hopper.jpg")


def live_frame() -> Frame:
    """A 1280×720 frame like the live outputs send: a portrait on a textured scene."""
    frame = cv2.resize(read_image(SAMPLE_FACES_DIR / "astronaut_eileen_collins.png"), (1280, 720))
    return frame


def psnr(a: Frame, b: Frame) -> float:
    mse = float(np.mean((a.astype(np.float64) - b) ** 2))
    return 10 * np.log10(255.0**2 / mse)


@pytest.mark.parametrize("make", [portrait, live_frame], ids=["portrait", "1280x720"])
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_mark_survives_each_attack(make: object, attack: str) -> None:
    frame = make()  # type: ignore[operator]
    marked = Watermarker().mark(frame, DAY)
    found = detect(ATTACKS[attack](marked))
    assert found.marked, found.describe()
    assert found.payload == Payload("Fusecam", 1, DAY)


def test_the_mark_survives_an_h264_reencode_at_crf_28() -> None:
    marker = Watermarker()
    frame = live_frame()
    # A little motion, so the encoder predicts across frames as it does on a stream.
    frames = [marker.mark(np.roll(frame, 2 * i, axis=1), DAY) for i in range(6)]
    decoded = h264(frames, crf=28)
    assert len(decoded) == len(frames)
    results = [detect(f) for f in decoded]
    assert all(r.marked for r in results), [r.describe() for r in results]


def small_still() -> Frame:
    """A photo as small as the smallest of ../shared/testdata/wide (144×160): about one
    tile, and after a 50 % downscale less than one."""
    return cv2.resize(portrait(), (144, 160), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("attack", [*sorted(ATTACKS), "h264_crf28"])
def test_a_small_still_survives_each_attack(attack: str) -> None:
    marked = Watermarker().mark(small_still(), DAY)
    attacked = h264([marked] * 3)[1] if attack == "h264_crf28" else ATTACKS[attack](marked)
    found = detect(attacked)
    assert found.marked, found.describe()
    assert found.payload == Payload("Fusecam", 1, DAY)
    if attack == "downscale_50":  # under 160 px: the scale was swept
        assert found.swept and found.scale == pytest.approx((0.5, 0.5), abs=0.01)


def test_a_small_unmarked_picture_is_not_marked_and_a_tiny_one_too_small() -> None:
    found = detect(small_still())
    assert not found.marked and not found.too_small, found.describe()
    assert found.confidence < SWEEP_THRESHOLD
    for size in ((100, 110), (40, 40)):  # under one tile; under half a tile
        tiny = detect(cv2.resize(portrait(), size, interpolation=cv2.INTER_AREA))
        assert not tiny.marked and tiny.too_small
        assert tiny.describe().startswith("too small to decide")


def test_a_downscaled_frame_is_read_at_its_scale() -> None:
    found = detect(ATTACKS["downscale_50"](Watermarker().mark(live_frame(), DAY)))
    assert found.marked
    assert found.scale == pytest.approx((0.5, 0.5), abs=0.003)


def unmarked_pictures() -> list[Path]:
    paths = sorted(SAMPLE_FACES_DIR.glob("*.*"))
    if TESTDATA.is_dir():
        paths += sorted(p for p in TESTDATA.rglob("*") if p.suffix.lower() in (".jpg", ".png"))
    return [p for p in paths if p.suffix.lower() in (".jpg", ".jpeg", ".png")]


@pytest.mark.parametrize("path", unmarked_pictures(), ids=lambda p: p.name)
def test_an_unmarked_picture_is_not_marked(path: Path) -> None:
    found = detect(read_image(path))
    assert not found.marked, found.describe()
    assert found.payload is None
    assert found.confidence < THRESHOLD


def test_the_mark_is_faint() -> None:
    frame = portrait()
    marked = Watermarker().mark(frame, DAY)
    assert psnr(marked, frame) >= 42.0
    change = np.abs(marked.astype(np.int16) - frame)
    assert change.max() <= max_change() <= 5
    # Luma only: every channel of a pixel moves alike (unless one clipped at 0 or 255).
    inside = (frame > 5).all(axis=2) & (frame < 250).all(axis=2)
    moved = marked.astype(np.int16) - frame
    assert (moved[inside, 0] == moved[inside, 1]).all()


def test_flat_areas_are_left_alone() -> None:
    grey = np.full((720, 1280, 3), 128, np.uint8)
    np.testing.assert_array_equal(Watermarker().mark(grey, DAY), grey)
    # Half textured: the textured half is marked, the flat half is not.
    frame = grey.copy()
    frame[:, :640] = cv2.resize(portrait(), (640, 720))
    marked = Watermarker().mark(frame, DAY)
    assert (marked[:, :600] != frame[:, :600]).mean() > 0.3
    np.testing.assert_array_equal(marked[:, 704:], frame[:, 704:])
    assert (block_levels(grey) == 0).all()


def test_busy_blocks_get_a_stronger_mark_within_the_psnr_budget() -> None:
    assert busy_amplitude(1.0, 0.0) == AMPLITUDE  # nothing busy
    assert busy_amplitude(0.0, 1.0) == 1.9  # all busy: the budget allows a little more
    boosted = busy_amplitude(0.2, 0.3)  # half the frame flat
    assert boosted > AMPLITUDE
    assert 0.2 * AMPLITUDE**2 + 0.3 * boosted**2 <= MSE_BUDGET


def test_marking_does_not_change_the_input() -> None:
    frame = portrait()
    before = frame.copy()
    Watermarker().mark(frame, DAY)
    np.testing.assert_array_equal(frame, before)


def test_the_payload_reads_back_and_corrects_a_few_flipped_bits() -> None:
    payload = today_payload(DAY)
    soft = encode(payload).astype(np.float64) * 2 - 1
    assert decode_soft(soft).payload == payload
    flipped = soft.copy()
    flipped[[3, 40, 70, 90]] *= -1  # two in the name, two in the day and CRC
    reading = decode_soft(flipped)
    assert reading.payload == payload
    assert reading.agreeing_bits == 92


def test_random_bits_carry_no_payload() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        assert decode_soft(rng.normal(size=96)).payload is None


def test_scale_candidates_stay_in_the_searched_range() -> None:
    """Whatever the picture (noise, a portrait, a flat frame), the scales tried are ones
    the search covers: a fit through noise once asked for a 48 GB resample."""
    rng = np.random.default_rng(3)
    pictures = [
        rng.integers(0, 256, (360, 640, 3), dtype=np.uint8),
        portrait(),
        np.full((200, 300, 3), 90, np.uint8),
    ]
    for picture in pictures:
        for sx, sy in scale_candidates(whiten(luma(picture))):
            assert MIN_SCALE * 0.9 <= sx <= MAX_SCALE * 1.1
            assert MIN_SCALE * 0.9 <= sy <= MAX_SCALE * 1.1
        assert not detect(picture).marked


def test_a_kept_marker_marks_as_a_fresh_one() -> None:
    """The planes kept from frame to frame (only the blocks whose amplitude changed are
    rewritten) give the same frame as planes built for it alone."""
    kept = Watermarker()
    half_flat = live_frame()
    half_flat[:, 640:] = 128
    for frame in (live_frame(), half_flat, np.full_like(half_flat, 128), live_frame()):
        np.testing.assert_array_equal(kept.mark(frame, DAY), Watermarker().mark(frame, DAY))
    small = portrait()[:50, :90]  # smaller than a block: left alone
    np.testing.assert_array_equal(kept.mark(small, DAY), small)
