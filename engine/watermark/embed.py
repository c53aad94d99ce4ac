"""Adding the mark to a frame: the tiled pattern, added to every channel alike (so to luma
only; colour stays as it was), only where the picture has texture to hide it in
(engine.watermark.texture): flat blocks keep their pixels, textured ones get the base
amplitude, busy ones a stronger mark — as strong as the frame's PSNR budget allows, so a
frame that is mostly flat or mostly plain carries its mark in its busy parts.

The mark of a frame size and day is kept as one signed single-channel plane with every
block at its amplitude; a new frame rewrites only the blocks whose amplitude changed, so
marking it is the texture measure and one compiled saturating add of that plane to all
three channels (engine.watermark.add; docs/watermark.md has the measured cost, and
`fusecam bench` reports it as the "watermark" row).
"""

from __future__ import annotations

import datetime as dt
import threading

import numpy as np
from numpy.typing import NDArray

from engine.core.types import Frame
from engine.watermark.add import Delta, add_delta
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


def pattern_plane(payload: Payload, size: tuple[int, int], amplitude: float) -> Delta:
    """The mark for a frame of `size` (width, height) at `amplitude`: each pixel's
    change in grey levels, the same on every channel (int8: it is at most max_change())."""
    width, height = size
    tile = np.rint(render(chip_values(encode(payload))) * amplitude).astype(np.int8)
    reps = (-(-height // TILE_PX), -(-width // TILE_PX))
    return np.ascontiguousarray(np.tile(tile, reps)[:height, :width])


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
    """The mark of one frame size and day with every block at its own amplitude, as a
    plane padded to whole blocks; kept from frame to frame, and only the blocks whose
    amplitude changed are rewritten (on a live picture, a few)."""

    def __init__(self, payload: Payload, size: tuple[int, int]) -> None:
        self.size = size
        # Whole blocks, one more only where a side is ragged: a frame of whole blocks
        # (1280×720) keeps a contiguous plane, which the add runs faster over.
        rows, cols = -(-size[1] // BLOCK_PX), -(-size[0] // BLOCK_PX)
        blocks = (rows, cols)
        self._padded = (cols * BLOCK_PX, rows * BLOCK_PX)
        self._payload = payload
        self._sources: dict[float, Delta] = {}
        self._zero = np.zeros((rows * BLOCK_PX, cols * BLOCK_PX), dtype=np.int8)
        self.plane: Delta = self._zero.copy()
        self.amplitudes = np.zeros(blocks, dtype=np.float32)

    def _source(self, amplitude: float) -> Delta:
        if amplitude == 0.0:
            return self._zero
        if amplitude not in self._sources:
            self._sources[amplitude] = pattern_plane(self._payload, self._padded, amplitude)
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
            # Block views (rows, 64, cols, 64): one fancy-indexed copy per amplitude
            # moves every changed block at once.
            _blocks(self.plane)[rows, :, cols] = _blocks(self._source(amplitude))[rows, :, cols]
        self.amplitudes = amplitudes

    def cropped(self) -> Delta:
        width, height = self.size
        return self.plane[:height, :width]


def _blocks(plane: Delta) -> NDArray[np.int8]:
    height, width = plane.shape
    return plane.reshape(height // BLOCK_PX, BLOCK_PX, width // BLOCK_PX, BLOCK_PX)


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
        # C order whatever `frame`'s layout: the add reads and writes rows as H×3W.
        out = np.empty(frame.shape, dtype=np.uint8)
        rows = np.ascontiguousarray(frame).reshape(height, 3 * width)
        with self._lock:  # the composite is rewritten per frame: one frame at a time
            if self._composite is None or self._key != (size, day):
                self._composite = _Composite(today_payload(day), size)
                self._key = (size, day)
            self._composite.update(amplitudes)
            # One pass over the frame (flat blocks add nothing); inside the lock, as
            # the next frame may rewrite the plane's blocks.
            add_delta(rows, self._composite.cropped(), out.reshape(height, 3 * width))
        return out


def max_change() -> int:
    """The most the mark moves any channel of any pixel (grey levels)."""
    tile = render(chip_values(encode(today_payload())))
    return int(np.abs(np.rint(tile * max(BUSY_STEPS))).max())
