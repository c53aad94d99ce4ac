"""Adding the mark to a frame: the tiled pattern, added to every channel alike (so to luma
only; colour stays as it was), only where the picture has texture to hide it in
(engine.watermark.texture): flat blocks keep their pixels, textured ones get the base
amplitude, busy ones a stronger mark — as strong as the frame's PSNR budget allows, so a
frame that is mostly flat or mostly plain carries its mark in its busy parts.

The planes for a frame size, day and amplitude are built once and kept as uint8 planes
(the positive and the negative part), so marking a frame is two saturating OpenCV
passes plus patching the flat and plain runs (docs/watermark.md has the measured cost;
`fusecam bench` reports it as the "watermark" row).
"""

from __future__ import annotations

import datetime as dt
import threading

import cv2
import numpy as np

from engine.core.types import Frame
from engine.watermark.pattern import TILE_PX, chip_values, render
from engine.watermark.payload import Payload, encode, today_payload
from engine.watermark.texture import block_levels, runs

# Grey levels at the pattern's RMS in textured blocks (PSNR 20·log10(255/1.8) = 43 dB
# where all of a frame is textured); busy blocks get up to BUSY_MAX.
AMPLITUDE = 1.8
BUSY_STEPS = (1.8, 2.2, 2.6, 3.0)
BUSY_MAX = BUSY_STEPS[-1]
# Mean squared change the busy blocks may bring the frame to: PSNR 42.5 dB (the target
# is 42; rounding and the edge blocks need the rest).
MSE_BUDGET = 255.0**2 / 10 ** (42.5 / 10)

Planes = tuple[Frame, Frame]


def pattern_planes(payload: Payload, size: tuple[int, int], amplitude: float) -> Planes:
    """The (positive, negative) parts of the mark for a frame of `size` (width, height),
    as 3-channel uint8 planes."""
    width, height = size
    tile = np.rint(render(chip_values(encode(payload))) * amplitude).astype(np.int16)
    reps = (-(-height // TILE_PX), -(-width // TILE_PX))
    full = np.tile(tile, reps)[:height, :width]
    pos = np.clip(full, 0, 255).astype(np.uint8)
    neg = np.clip(-full, 0, 255).astype(np.uint8)
    return cv2.merge([pos, pos, pos]), cv2.merge([neg, neg, neg])


def busy_amplitude(textured: float, busy: float) -> float:
    """The strongest busy amplitude (of BUSY_STEPS) that keeps the frame's mean squared
    change within MSE_BUDGET, given the fractions of textured and busy blocks."""
    if busy <= 0:
        return AMPLITUDE
    room = (MSE_BUDGET - textured * AMPLITUDE**2) / busy
    fitting = [a for a in BUSY_STEPS if a * a <= room]
    return fitting[-1] if fitting else AMPLITUDE


def _add(frame: Frame, planes: Planes, out: Frame | None = None) -> Frame:
    pos, neg = planes
    result = cv2.add(frame, pos, dst=out)
    cv2.subtract(result, neg, dst=result)
    return result


class Watermarker:
    """Marks frames with the day's payload; keeps the planes of the last size and day.

    Thread-safe: the live guard and an offline swap may share one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[tuple[int, int], dt.date] | None = None
        self._planes: dict[float, Planes] = {}

    def planes(self, size: tuple[int, int], day: dt.date, amplitude: float) -> Planes:
        with self._lock:
            if self._key != (size, day):
                self._planes.clear()
                self._key = (size, day)
            if amplitude not in self._planes:
                self._planes[amplitude] = pattern_planes(today_payload(day), size, amplitude)
            return self._planes[amplitude]

    def mark(self, frame: Frame, day: dt.date | None = None) -> Frame:
        """A new, marked copy of `frame` (BGR uint8); `frame` is not changed."""
        height, width = frame.shape[:2]
        size, day = (width, height), day or dt.datetime.now(dt.UTC).date()
        levels = block_levels(frame)
        busy = float((levels == 2).mean())
        strong = busy_amplitude(float((levels == 1).mean()), busy)
        out = _add(frame, self.planes(size, day, strong))
        if strong != AMPLITUDE:
            base = self.planes(size, day, AMPLITUDE)
            for y0, y1, x0, x1 in runs(levels == 1, size):
                box = (slice(y0, y1), slice(x0, x1))
                _add(frame[box], (base[0][box], base[1][box]), out[box])
        for y0, y1, x0, x1 in runs(levels == 0, size):
            out[y0:y1, x0:x1] = frame[y0:y1, x0:x1]
        return out


def max_change() -> int:
    """The most the mark moves any channel of any pixel (grey levels)."""
    tile = render(chip_values(encode(today_payload())))
    return int(np.abs(np.rint(tile * max(BUSY_STEPS))).max())
