"""The visible "SYNTHETIC" badge every output carries when `output.synthetic_label` is on.

The output guard (engine.outputs.guard) draws it on each frame it hands the outputs —
swapped, held, covered or the placeholder card alike — so the virtual camera, the stream
and the recording all show it, and the user's own preview stays clean.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.types import Frame

TEXT = "SYNTHETIC"


def draw_label(frame: Frame, text: str = TEXT) -> None:
    """Draw the badge in place, in the bottom-right corner, sized to the frame."""
    h, w = frame.shape[:2]
    scale = max(0.35, min(w, h) / 900)
    thickness = max(1, round(scale * 2))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thickness)
    pad = max(3, round(th * 0.5))
    margin = max(4, round(min(w, h) * 0.02))
    x1, y1 = w - margin, h - margin
    x0, y0 = max(0, x1 - tw - 2 * pad), max(0, y1 - th - base - 2 * pad)
    # Darken only the badge's rectangle (a view, blended in one vectorised step).
    roi = frame[y0:y1, x0:x1]
    roi[:] = (roi.astype(np.uint16) * 2 // 5).astype(np.uint8)
    cv2.putText(
        frame,
        text,
        (x0 + pad, y1 - pad - base),
        cv2.FONT_HERSHEY_DUPLEX,
        scale,
        (255, 255, 255),
        thickness,
        cv2.LINE_AA,
    )
