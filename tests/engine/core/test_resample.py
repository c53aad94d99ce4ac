"""Shrinking by a block mean first: same geometry and values as one area resize."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.core.resample import shrink, snap_span


@pytest.mark.parametrize(
    ("lo", "hi", "factor", "limit", "expected"),
    [
        (10, 17, 3, 100, (10, 19)),  # grown to the right
        (90, 97, 4, 99, (90, 98)),
        (90, 97, 4, 97, (89, 97)),  # no room on the right: grown to the left
        (0, 9, 2, 10, (0, 10)),
        (0, 9, 4, 10, (0, 10)),  # the frame is too small: clipped, not a multiple
        (5, 11, 3, 50, (5, 11)),  # already a multiple
        (5, 11, 1, 50, (5, 11)),
    ],
)
def test_a_span_grows_to_a_multiple_of_the_factor_inside_the_frame(
    lo: int, hi: int, factor: int, limit: int, expected: tuple[int, int]
) -> None:
    assert snap_span(lo, hi, factor, limit) == expected


# (150, 120), (90, 72), (37, 29): halved once, twice, three times first, then the rest;
# (100, 80): halved twice alone; (130, 100): under 2×, the second step alone.
@pytest.mark.parametrize("size", [(150, 120), (90, 72), (37, 29), (100, 80), (130, 100)])
def test_shrinking_matches_one_area_resize(size: tuple[int, int]) -> None:
    """A 400×320 textured image (a multiple of 2, 4 and 8) down to sizes with and
    without a whole factor: the halvings-first path keeps every pixel centre where
    one `cv2.resize(INTER_AREA)` puts it (a shift would show on the ramps) and differs
    from it only by the second step's coarser averaging of partial blocks."""
    yy, xx = np.mgrid[0:320, 0:400].astype(np.float32)
    texture = 128 + 60 * np.sin(xx / 23) * np.cos(yy / 17)
    image = np.dstack([xx / 400 * 255, yy / 320 * 255, texture])
    one_step = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    result = shrink(image, size)
    assert result.shape == one_step.shape
    # The ramps (channels 0, 1) are linear: a misplaced pixel centre shows at once (half
    # an output pixel is 3–35 grey levels here). Inside, measured at most 0.03. On the
    # outermost pixels the rest-of-the-way tent filter is cut by the edge: measured at
    # most 0.49 there (37×29), still far under half a pixel.
    ramps = np.abs(result[..., :2] - one_step[..., :2])
    assert ramps[1:-1, 1:-1].max() < 0.5
    assert ramps.max() < 1.0
    # The texture: measured ≤ 0.84 (37×29, where the second step is a tent, not a box).
    assert np.abs(result[..., 2] - one_step[..., 2]).mean() < 1.5
