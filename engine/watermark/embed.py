"""Adding the mark to a frame: the tiled pattern, added to every channel alike (so to luma
only; colour stays as it was) at an amplitude of about two grey levels — but only where
the picture has texture to hide it in. On a flat area (a blank wall, a studio backdrop,
a grey test card) two grey levels of blotches would show, so flat 32 px blocks keep their
pixels; a picture that is flat all over carries no mark.

The pattern for a frame size and day is built once and kept as two uint8 planes (the
positive and the negative part), so marking a frame is two saturating OpenCV passes plus
putting the flat blocks back: well under 1.5 ms at 1280×720 on one core (`fusecam bench`
reports it as the "watermark" row).
"""

from __future__ import annotations

import datetime as dt
import threading

import cv2
import numpy as np

from engine.core.types import Frame
from engine.watermark.pattern import TILE_PX, chip_values, render
from engine.watermark.payload import Payload, encode, today_payload

# Grey levels at the pattern's RMS: PSNR ≈ 20·log10(255/AMPLITUDE) before rounding; 1.8
# keeps it above 42 dB and out of sight on flat grey (docs/watermark.md).
AMPLITUDE = 1.8


BLOCK_PX = 32  # the unit the flat/textured decision is made in
_SAMPLE_PX = 8  # texture is judged on every 8th pixel: cheap, and aliasing keeps fine grain
# Mean |Laplacian| (grey levels, on the sampled grid) below which a block counts as flat.
# Camera noise of ±1.5 levels already reaches it: the mark hides in noise that faint.
FLAT_LAPLACIAN = 6.0


def flat_runs(frame: Frame) -> list[tuple[int, int, int, int]]:
    """The flat stretches of `frame`, as (y0, y1, x0, x1) pixel boxes: runs of flat
    BLOCK_PX blocks along each row of blocks (few boxes, even where many blocks are)."""
    height, width = frame.shape[:2]
    step = BLOCK_PX // _SAMPLE_PX
    rows, cols = height // BLOCK_PX, width // BLOCK_PX
    if rows == 0 or cols == 0:
        return [(0, height, 0, width)]
    sampled = frame[_SAMPLE_PX // 2 :: _SAMPLE_PX, _SAMPLE_PX // 2 :: _SAMPLE_PX]
    gray = cv2.cvtColor(np.ascontiguousarray(sampled), cv2.COLOR_BGR2GRAY)
    lap = np.abs(cv2.Laplacian(gray, cv2.CV_16S)).astype(np.float32)
    blocks = lap[: rows * step, : cols * step].reshape(rows, step, cols, step).mean(axis=(1, 3))
    flat = blocks < FLAT_LAPLACIAN
    # The ragged right and bottom edges (less than a block) follow their neighbour.
    flat_full = np.zeros((rows + 1, cols + 1), dtype=bool)
    flat_full[:rows, :cols] = flat
    flat_full[rows, :cols] = flat[-1]
    flat_full[:, cols] = flat_full[:, cols - 1]
    # Row by row, where a run of flat blocks starts and ends (np.nonzero walks rows in
    # order, so the n-th start and the n-th end belong together).
    edges = np.diff(np.pad(flat_full.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    rows_at, starts = np.nonzero(edges == 1)
    ends = np.nonzero(edges == -1)[1]
    return [
        (r * BLOCK_PX, min(height, (r + 1) * BLOCK_PX), c0 * BLOCK_PX, min(width, c1 * BLOCK_PX))
        for r, c0, c1 in zip(rows_at.tolist(), starts.tolist(), ends.tolist(), strict=True)
    ]


def pattern_planes(
    payload: Payload, size: tuple[int, int], amplitude: float = AMPLITUDE
) -> tuple[Frame, Frame]:
    """The (positive, negative) parts of the mark for a frame of `size` (width, height),
    as 3-channel uint8 planes."""
    width, height = size
    tile = np.rint(render(chip_values(encode(payload))) * amplitude).astype(np.int16)
    reps = (-(-height // TILE_PX), -(-width // TILE_PX))
    full = np.tile(tile, reps)[:height, :width]
    pos = np.clip(full, 0, 255).astype(np.uint8)
    neg = np.clip(-full, 0, 255).astype(np.uint8)
    return cv2.merge([pos, pos, pos]), cv2.merge([neg, neg, neg])


class Watermarker:
    """Marks frames with today's payload; keeps the planes of the last size and day.

    Thread-safe: the live guard and an offline swap may share one."""

    def __init__(self, amplitude: float = AMPLITUDE) -> None:
        self.amplitude = amplitude
        self._lock = threading.Lock()
        self._key: tuple[tuple[int, int], dt.date] | None = None
        self._planes: tuple[Frame, Frame] | None = None

    def planes(self, size: tuple[int, int], day: dt.date) -> tuple[Frame, Frame]:
        with self._lock:
            if self._key != (size, day) or self._planes is None:
                payload = today_payload(day)
                self._planes = pattern_planes(payload, size, self.amplitude)
                self._key = (size, day)
            return self._planes

    def mark(self, frame: Frame, day: dt.date | None = None) -> Frame:
        """A new, marked copy of `frame` (BGR uint8); `frame` is not changed."""
        height, width = frame.shape[:2]
        pos, neg = self.planes((width, height), day or dt.datetime.now(dt.UTC).date())
        out = cv2.add(frame, pos)
        cv2.subtract(out, neg, dst=out)
        for y0, y1, x0, x1 in flat_runs(frame):
            out[y0:y1, x0:x1] = frame[y0:y1, x0:x1]
        return out


def max_change(amplitude: float = AMPLITUDE) -> int:
    """The most the mark moves any channel of any pixel (grey levels)."""
    return int(np.abs(np.rint(render(chip_values(encode(today_payload()))) * amplitude)).max())
