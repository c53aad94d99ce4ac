"""The hand mask: palm polygon plus each finger as a thick rounded stroke, grown a little.

A convex hull of the 21 points would also cover the gaps between spread fingers (the
swapped face must show there); strokes follow the fingers, and their width comes from
the spacing of the knuckles, so the mask scales with the hand.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import Mask

PALM = (0, 1, 2, 5, 9, 13, 17)
FINGERS = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16), (17, 18, 19, 20))
_KNUCKLES = (5, 9, 13, 17)
_FINGER_WIDTH = 1.05  # × mean knuckle spacing (fingers touch when held together)
_SHIFT = 4  # fixed-point bits for sub-pixel drawing
_MIN_SIZE_PX = 6.0


def hand_size_px(landmarks: NDArray[np.floating]) -> float:
    """Wrist to middle-finger knuckle: a length that does not change as fingers curl."""
    return float(np.hypot(*(landmarks[9, :2] - landmarks[0, :2])))


def finger_width_px(landmarks: NDArray[np.floating]) -> float:
    xy = landmarks[list(_KNUCKLES), :2]
    spacing = float(np.mean(np.hypot(*np.diff(xy, axis=0).T)))
    return max(2.0, _FINGER_WIDTH * spacing)


def hand_mask(
    hands: list[NDArray[np.floating]],
    shape: tuple[int, int],
    origin: tuple[int, int] = (0, 0),
    grow: float = 0.06,
) -> Mask:
    """float32 0/1 mask of size `shape` (h, w) whose (0, 0) is frame pixel `origin`.

    `grow`: extra margin around the hand as a fraction of its size, for landmark error.
    """
    h, w = shape
    out = np.zeros((h, w), np.uint8)
    scale = float(1 << _SHIFT)
    for landmarks in hands:
        size = hand_size_px(landmarks)
        if size < _MIN_SIZE_PX:
            continue
        local = (landmarks[:, :2] - np.asarray(origin, np.float64)) * scale
        pts = np.round(local).astype(np.int32)
        # Whole-hand bounding box outside the region: nothing to draw.
        margin = (finger_width_px(landmarks) + grow * size) * scale
        if (
            pts[:, 0].max() < -margin
            or pts[:, 1].max() < -margin
            or pts[:, 0].min() > w * scale + margin
            or pts[:, 1].min() > h * scale + margin
        ):
            continue
        hull = cv2.convexHull(pts[list(PALM)])
        cv2.fillConvexPoly(out, hull, 255, cv2.LINE_8, _SHIFT)
        # Strokes get the margin in their width: one growth for palm and fingers alike.
        thickness = max(1, round(finger_width_px(landmarks) + 2 * grow * size))
        for chain in FINGERS:
            cv2.polylines(out, [pts[list(chain)]], False, 255, thickness, cv2.LINE_8, _SHIFT)
        radius = round(grow * size)
        if radius > 0:
            cv2.polylines(out, [hull], True, 255, 2 * radius + 1, cv2.LINE_8, _SHIFT)
    return out.astype(np.float32) * (1.0 / 255.0)
