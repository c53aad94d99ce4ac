"""What the output guard shows instead of a frame the swap missed: the frame blurred or
pixelated (all of it, or only the faces), or a placeholder card.

Each cover is strong enough that nobody could recognise the face under it: the blur
shrinks a whole frame to `_BLUR_SHORT_SIDE_PX` pixels (a face to a few pixels) before
scaling it back, the pixelation leaves about `_FACE_BLOCKS` blocks across a face.
Shrinking and scaling back is one vectorised resize each way, so a 1280×720 cover costs
about a millisecond (measured in docs/output-guard.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import cv2
import numpy as np

from engine.core.packet import Box
from engine.core.types import Frame

CoverKind = Literal["blur", "pixelate"]

_BLUR_SHORT_SIDE_PX = 20  # the whole frame, shrunk: a face becomes a few pixels
_PIXEL_BLOCKS_SHORT_SIDE = 16  # whole-frame pixelation: blocks along the short side
_FACE_BLUR_PX = 5  # a face region, shrunk to this many pixels across
_FACE_BLOCKS = 6  # a face region, pixelated into this many blocks across

CARD_BACKGROUND = (29, 24, 22)  # BGR, the app's dark grey
CARD_TEXT = (236, 232, 230)
CARD_HINT = (160, 154, 150)


def _shrink(image: Frame, short_side: int) -> Frame:
    """Averaged down to `short_side` pixels on the short side. OpenCV's area filter has a
    fast path only for halving (1.0 ms for 1920×1080 → 960×540; 7 ms for any other
    factor), so it halves while the image is over 4× too big (an odd last row or column
    left out is still covered: the result is scaled back to the whole image), then
    shrinks the small rest in one step."""
    target = max(1, short_side)
    while min(image.shape[:2]) >= 4 * target:
        h, w = image.shape[0] // 2 * 2, image.shape[1] // 2 * 2
        image = cv2.resize(image[:h, :w], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    h, w = image.shape[:2]
    s = max(1.0, min(h, w) / target)
    size = (max(1, round(w / s)), max(1, round(h / s)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def blur(image: Frame, short_side: int = _BLUR_SHORT_SIDE_PX) -> Frame:
    """Shrunk to `short_side` pixels and smoothly scaled back: only colours remain."""
    h, w = image.shape[:2]
    small = cv2.GaussianBlur(_shrink(image, short_side), (0, 0), 1.0)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def pixelate(image: Frame, blocks: int = _PIXEL_BLOCKS_SHORT_SIDE) -> Frame:
    """`blocks` square blocks along the short side, each one averaged colour."""
    h, w = image.shape[:2]
    return cv2.resize(_shrink(image, blocks), (w, h), interpolation=cv2.INTER_NEAREST)


def cover_frame(frame: Frame, kind: CoverKind) -> Frame:
    """A new frame: all of `frame` blurred or pixelated."""
    return blur(frame) if kind == "blur" else pixelate(frame)


def cover_boxes(frame: Frame, boxes: Sequence[Box], kind: CoverKind) -> Frame:
    """A copy of `frame` with each box blurred or pixelated (sized to the box)."""
    out = np.array(frame, copy=True)
    for x0, y0, x1, y1 in boxes:
        region = out[y0:y1, x0:x1]
        if region.size == 0:
            continue
        if kind == "blur":
            region[:] = blur(region, _FACE_BLUR_PX)
        else:
            region[:] = pixelate(region, _FACE_BLOCKS)
    return out


@lru_cache(maxsize=8)
def _card(width: int, height: int, title: str, hint: str) -> Frame:
    card = np.empty((height, width, 3), np.uint8)
    card[:] = CARD_BACKGROUND
    unit = min(width, height) / 360
    lines = ((title, 1.3 * unit, CARD_TEXT, 2), (hint, 0.6 * unit, CARD_HINT, 1))
    y = height // 2
    for text, scale, colour, weight in lines:
        thickness = max(1, round(weight * unit))
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thickness)
        cv2.putText(
            card,
            text,
            ((width - tw) // 2, y),
            cv2.FONT_HERSHEY_DUPLEX,
            scale,
            colour,
            thickness,
            cv2.LINE_AA,
        )
        y += th + round(24 * unit)
    card.flags.writeable = False  # shared between frames: the cache hands out one array
    return card


def placeholder_card(size: tuple[int, int], title: str, hint: str = "") -> Frame:
    """A plain card of `size` (width, height) with a title and a hint line. Read-only,
    shared: copy it before drawing on it."""
    width, height = size
    return _card(width, height, title, hint)
