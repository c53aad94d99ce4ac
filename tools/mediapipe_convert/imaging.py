"""Turning the check photo into model inputs, as MediaPipe's ImageToTensorCalculator does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Letterbox:
    """An RGB image letterboxed into a square tensor, and how to map back."""

    tensor: np.ndarray  # (1, S, S, 3) float32 in the requested range
    scale: float  # tensor pixels per source pixel
    pad_x: float  # left padding, tensor pixels
    pad_y: float


def to_range(rgb_u8: np.ndarray, value_range: Sequence[float]) -> np.ndarray:
    lo, hi = value_range
    return (rgb_u8.astype(np.float32) / 255.0 * (hi - lo) + lo)[None]


def letterbox(image: Any, size: int, value_range: Sequence[float]) -> Letterbox:
    """Fit ``image`` (PIL) into ``size``x``size`` keeping aspect, zero border (in [0,1] units).

    Like ImageToTensorCalculator with keep_aspect_ratio and BORDER_ZERO: the border is
    the value 0 *after* range mapping' inverse, i.e. black scaled into the range's min.
    """
    from PIL import Image

    w, h = image.size
    scale = size / max(w, h)
    nw, nh = round(w * scale), round(h * scale)
    canvas = Image.new("RGB", (size, size))
    px, py = (size - nw) // 2, (size - nh) // 2
    canvas.paste(image.resize((nw, nh), Image.Resampling.BILINEAR), (px, py))
    return Letterbox(to_range(np.asarray(canvas), value_range), scale, px, py)


def square_crop(image: Any, box_px: np.ndarray, enlarge: float, size: int) -> np.ndarray:
    """Crop a square of side ``enlarge * max(w, h)`` centred on ``box_px``; resize to ``size``."""
    from PIL import Image

    x0, y0, x1, y1 = box_px
    side = enlarge * max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    crop = image.crop(
        (round(cx - side / 2), round(cy - side / 2), round(cx + side / 2), round(cy + side / 2))
    )
    return np.asarray(crop.resize((size, size), Image.Resampling.BILINEAR))
