"""Adding the mark to a frame: the tiled pattern, added to every channel alike (so to luma
only; colour stays as it was), only where the picture has texture to hide it in
(engine.watermark.texture): flat blocks keep their pixels, textured ones get the base
amplitude, busy ones a stronger mark — as strong as the frame's PSNR budget allows, so a
frame that is mostly flat or mostly plain carries its mark in its busy parts.

The mark of a frame size and day is kept as uint8 planes (the positive and the negative
part) with every block at its amplitude; a new frame rewrites only the blocks whose
amplitude changed, so marking it is the texture measure and two saturating OpenCV
passes (docs/watermark.md has the measured cost; `fusecam bench` reports it as the
"watermark" row).
"""

from __future__ import annotations

import datetime as dt
import threading

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import Frame
from engine.watermark.pattern import TILE_PX, chip_values, render
from engine.watermark.payload import Payload, encode, today_payload
from engine.watermark.texture import BLOCK_PX, Levels, block_levels

# Grey levels at the pattern's RMS in textured blocks (PSNR 20·log10(255/1.8) = 43 dB
# where all of a frame is textured); busy blocks get up to BUSY_MAX.
AMPLITUDE = 1.8
BUSY_STEPS = (1.8, 1.9, 2.2, 2.6, 3.0)
BUSY_MAX = BUSY_STEPS[-1]
# Mean squared change the busy blocks may bring the frame to: PSNR 42.5 dB (the target
# is 42; rounding and the edge blocks need the rest).
MSE_BUDGET = 255.0**2 / 10 ** (42.5 / 10)

# Rows per strip of the two passes: a strip of frame, output and both planes stays
# within a core's 2 MiB L2 cache.
_STRIP_BYTES = 448 * 1024

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


def block_amplitudes(levels: Levels) -> NDArray[np.float32]:
    """Each block's amplitude: none where flat, the base where textured, the busy one
    the frame's budget allows where busy."""
    busy = float((levels == 2).mean())
    strong = busy_amplitude(float((levels == 1).mean()), busy)
    return np.array([0.0, AMPLITUDE, strong], dtype=np.float32)[levels]


class _Composite:
    """The mark of one frame size and day with every block at its own amplitude, as
    (positive, negative) planes padded to whole blocks; kept from frame to frame, and
    only the blocks whose amplitude changed are rewritten (on a live picture, a few)."""

    def __init__(self, payload: Payload, size: tuple[int, int]) -> None:
        self.size = size
        # Whole blocks, one more only where a side is ragged: a frame of whole blocks
        # (1280×720) keeps contiguous planes, which the passes run faster over.
        rows, cols = -(-size[1] // BLOCK_PX), -(-size[0] // BLOCK_PX)
        blocks = (rows, cols)
        self._padded = (cols * BLOCK_PX, rows * BLOCK_PX)
        self._payload = payload
        self._sources: dict[float, Planes] = {}
        self._zero = np.zeros((rows * BLOCK_PX, cols * BLOCK_PX, 3), dtype=np.uint8)
        self.planes: Planes = (self._zero.copy(), self._zero.copy())
        self.amplitudes = np.zeros(blocks, dtype=np.float32)

    def _source(self, amplitude: float) -> Planes:
        if amplitude == 0.0:
            return self._zero, self._zero
        if amplitude not in self._sources:
            self._sources[amplitude] = pattern_planes(self._payload, self._padded, amplitude)
        return self._sources[amplitude]

    def update(self, amplitudes: NDArray[np.float32]) -> None:
        """Take each block's amplitude (block_amplitudes: a frame smaller than a block
        has one, zero)."""
        if amplitudes.shape == (1, 1):
            amplitudes = np.broadcast_to(amplitudes, self.amplitudes.shape)
        amplitudes = amplitudes[: self.amplitudes.shape[0], : self.amplitudes.shape[1]]
        changed = amplitudes != self.amplitudes
        for amplitude in np.unique(amplitudes[changed]).tolist():
            rows, cols = np.nonzero(changed & (amplitudes == amplitude))
            for plane, source in zip(self.planes, self._source(amplitude), strict=True):
                # Block views (rows, 64, cols, 64, 3): one fancy-indexed copy per
                # amplitude moves every changed block at once.
                _blocks(plane)[rows, :, cols] = _blocks(source)[rows, :, cols]
        self.amplitudes = amplitudes

    def cropped(self) -> Planes:
        width, height = self.size
        pos, neg = self.planes
        return pos[:height, :width], neg[:height, :width]


def _blocks(plane: Frame) -> NDArray[np.uint8]:
    height, width = plane.shape[:2]
    return plane.reshape(height // BLOCK_PX, BLOCK_PX, width // BLOCK_PX, BLOCK_PX, 3)


class Watermarker:
    """Marks frames with the day's payload; keeps the planes of the last size and day.

    Thread-safe: the live guard and an offline swap may share one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[tuple[int, int], dt.date] | None = None
        self._composite: _Composite | None = None

    def mark(self, frame: Frame, day: dt.date | None = None) -> Frame:
        """A new, marked copy of `frame` (BGR uint8); `frame` is not changed."""
        height, width = frame.shape[:2]
        size, day = (width, height), day or dt.datetime.now(dt.UTC).date()
        amplitudes = block_amplitudes(block_levels(frame))
        out = np.empty_like(frame)
        with self._lock:  # the composite is rewritten per frame: one frame at a time
            if self._composite is None or self._key != (size, day):
                self._composite = _Composite(today_payload(day), size)
                self._key = (size, day)
            self._composite.update(amplitudes)
            pos, neg = self._composite.cropped()
            # Two saturating passes (flat blocks add and take away nothing), strip by
            # strip: the second pass finds the strip still in the core's cache (a
            # third faster than two passes over the whole frame).
            rows = max(1, _STRIP_BYTES // (3 * width))
            for y in range(0, height, rows):
                strip = slice(y, y + rows)
                cv2.add(frame[strip], pos[strip], dst=out[strip])
                cv2.subtract(out[strip], neg[strip], dst=out[strip])
        return out


def max_change() -> int:
    """The most the mark moves any channel of any pixel (grey levels)."""
    tile = render(chip_values(encode(today_payload())))
    return int(np.abs(np.rint(tile * max(BUSY_STEPS))).max())
