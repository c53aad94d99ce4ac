"""How much texture each 64 px block of a frame has, to hide the mark in: none (flat:
the mark would show as blotches, so it is left out), some (the base amplitude), or a
lot (a stronger mark, within the frame's PSNR budget).

Judged on every 8th pixel (about 0.1 ms at 1280×720): cheap, and the aliasing of such
sparse samples keeps fine grain visible to the measure.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import Frame

# 64 px: a frame of 1280×720 has 240 blocks, so patching the flat and plain ones back
# is a few dozen slice copies (32 px blocks made hundreds, and marked less of the frame).
BLOCK_PX = 64
_SAMPLE_PX = 8
# Mean |Laplacian| (grey levels, on the sampled grid): below FLAT a block is flat (camera
# noise of ±1.5 levels already reaches it: the mark hides in noise that faint); from
# BUSY on it is busy enough for a stronger mark.
FLAT, BUSY = 6.0, 16.0

Box = tuple[int, int, int, int]  # y0, y1, x0, x1 in pixels
Levels = NDArray[np.int8]  # per block: 0 flat, 1 textured, 2 busy


def block_levels(frame: Frame) -> Levels:
    """Each block's level; the ragged right and bottom edges (less than a block) take
    their neighbour's. A frame smaller than a block is one flat block."""
    height, width = frame.shape[:2]
    step = BLOCK_PX // _SAMPLE_PX
    rows, cols = height // BLOCK_PX, width // BLOCK_PX
    if rows == 0 or cols == 0:
        return np.zeros((1, 1), dtype=np.int8)
    sampled = frame[_SAMPLE_PX // 2 :: _SAMPLE_PX, _SAMPLE_PX // 2 :: _SAMPLE_PX]
    gray = cv2.cvtColor(np.ascontiguousarray(sampled), cv2.COLOR_BGR2GRAY)
    lap = np.abs(cv2.Laplacian(gray, cv2.CV_16S)).astype(np.float32)
    blocks = lap[: rows * step, : cols * step].reshape(rows, step, cols, step).mean(axis=(1, 3))
    levels = (blocks >= FLAT).astype(np.int8) + (blocks >= BUSY).astype(np.int8)
    full = np.zeros((rows + 1, cols + 1), dtype=np.int8)
    full[:rows, :cols] = levels
    full[rows, :cols] = levels[-1]
    full[:, cols] = full[:, cols - 1]
    return full


def runs(chosen: NDArray[np.bool_], size: tuple[int, int]) -> list[Box]:
    """The chosen blocks as pixel boxes, one per run of chosen blocks along a row of
    blocks (few boxes, even where many blocks are chosen); `size` is (width, height)."""
    width, height = size
    if chosen.shape == (1, 1):  # a frame smaller than a block
        return [(0, height, 0, width)] if chosen[0, 0] else []
    # Where each run starts and ends; np.nonzero walks rows in order, so the n-th start
    # and the n-th end belong together.
    edges = np.diff(np.pad(chosen.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    rows_at, starts = np.nonzero(edges == 1)
    ends = np.nonzero(edges == -1)[1]
    return [
        (r * BLOCK_PX, min(height, (r + 1) * BLOCK_PX), c0 * BLOCK_PX, min(width, c1 * BLOCK_PX))
        for r, c0, c1 in zip(rows_at.tolist(), starts.tolist(), ends.tolist(), strict=True)
    ]
