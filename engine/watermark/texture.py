"""How much texture each 64 px block of a frame has, to hide the mark in: none (flat:
the mark would show as blotches, so it is left out), some (the base amplitude), or a
lot (a stronger mark, within the frame's PSNR budget).

Judged on every 8th pixel (under 0.1 ms at 1280×720): cheap, and the aliasing of such
sparse samples keeps fine grain visible to the measure.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import Frame

# 64 px: a frame of 1280×720 has 240 blocks; a texture a block wide is still judged on
# 64 samples (32 px blocks marked less of the frame).
BLOCK_PX = 64
_SAMPLE_PX = 8
# Mean |Laplacian| (grey levels, on the sampled grid): below FLAT a block is flat (camera
# noise of ±1.5 levels already reaches it: the mark hides in noise that faint); from
# BUSY on it is busy enough for a stronger mark.
FLAT, BUSY = 6.0, 16.0

Levels = NDArray[np.int8]  # per block: 0 flat, 1 textured, 2 busy


def block_levels(frame: Frame) -> Levels:
    """Each block's level; the ragged right and bottom edges (less than a block) take
    their neighbour's. A frame smaller than a block is one flat block."""
    height, width = frame.shape[:2]
    step = BLOCK_PX // _SAMPLE_PX
    rows, cols = height // BLOCK_PX, width // BLOCK_PX
    if rows == 0 or cols == 0:
        return np.zeros((1, 1), dtype=np.int8)
    # The samples at the middle of every 8×8 cell (the exact nearest-neighbour resize
    # picks them: five times faster than a strided numpy copy), their luma, and each
    # block's mean |Laplacian| (an area resize of the sampled grid).
    cropped = frame[: rows * BLOCK_PX, : cols * BLOCK_PX]
    sampled = cv2.resize(cropped, (cols * step, rows * step), interpolation=cv2.INTER_NEAREST_EXACT)
    gray = cv2.cvtColor(sampled, cv2.COLOR_BGR2GRAY)
    lap = np.abs(cv2.Laplacian(gray, cv2.CV_16S)).astype(np.float32)
    blocks = cv2.resize(lap, (cols, rows), interpolation=cv2.INTER_AREA)
    levels = (blocks >= FLAT).astype(np.int8) + (blocks >= BUSY).astype(np.int8)
    full = np.zeros((rows + 1, cols + 1), dtype=np.int8)
    full[:rows, :cols] = levels
    full[rows, :cols] = levels[-1]
    full[:, cols] = full[:, cols - 1]
    return full
