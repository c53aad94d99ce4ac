"""The debug overlay's pose text: on its own dark box, clear of the face and the crop
square, inside the frame whatever the face's position."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.render.debug_draw import draw_tag

TEXT = "yaw +12 pitch -3 roll +1"


def _changed(before: np.ndarray, after: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero((before != after).any(axis=2))
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


@pytest.mark.parametrize(
    ("square", "where"),
    [
        (((120, 150), (260, 150), (260, 290), (120, 290)), "above"),
        (((120, 2), (260, 2), (260, 140), (120, 140)), "below"),  # no room above
        (((-40, 60), (90, 60), (90, 190), (-40, 190)), "above"),  # off the left edge
    ],
)
def test_the_tag_sits_clear_of_the_square_inside_the_frame(square, where) -> None:  # type: ignore[no-untyped-def]
    frame = np.full((360, 480, 3), 120, np.uint8)
    points = np.array(square, np.float32)
    out = frame.copy()
    draw_tag(out, TEXT, points)
    x0, y0, x1, y1 = _changed(frame, out)
    # Inside the frame means the whole box was drawn: the frame's edge cut none of it
    # off. (Indices of changed pixels are in the frame anyway; their extent is what a
    # box pushed past an edge would lose.) At 360 px the text scale is 0.4.
    (tw, th), base = cv2.getTextSize(TEXT, cv2.FONT_HERSHEY_SIMPLEX, 0.4, 1)
    pad = max(2, round(th * 0.35))
    assert (x1 - x0 + 1, y1 - y0 + 1) == (tw + 2 * pad, th + base + 2 * pad)
    top, bottom = points[:, 1].min(), points[:, 1].max()
    assert (y1 < top) if where == "above" else (y0 > bottom)
    box = out[y0 : y1 + 1, x0 : x1 + 1]
    assert box.min() < 40 and box.max() > 240  # white text on a dark box: readable anywhere
