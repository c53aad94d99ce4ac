"""The keyed tile: a 128×128 pattern of ±1 chips, half of them fixed (the sync part that
finds the tile's offset and scale), half carrying the payload bits (each bit's chips
flip sign with it).

Chips are 4×4 px, softened so their energy sits at frequencies JPEG, H.264 and a 50 %
downscale keep. The key is fixed (derived from a constant string): the mark says
"made by Fusecam", it is not a secret, and anyone with this code can check it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.watermark.payload import FIXED_BITS, PAYLOAD_BITS, fixed_bits

TILE_PX = 128
CHIP_PX = 4
GRID = TILE_PX // CHIP_PX  # chips per tile side
_KEY = b"fusecam-watermark-v1"
# Softening of the chips (Gaussian sigma in px): sharp chip edges cost visibility and are
# the first thing a compressor drops.
_SOFTEN_SIGMA_PX = 1.2

F32 = NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Layout:
    """Which chip does what, in chip coordinates (GRID × GRID)."""

    sync: NDArray[np.bool_]  # the fixed chips
    sign: NDArray[np.float32]  # every chip's key sign (±1)
    bit: NDArray[np.int16]  # for a data chip, its payload bit index; -1 for sync chips


@cache
def layout() -> Layout:
    seed = int.from_bytes(hashlib.sha256(_KEY).digest()[:8], "big")
    rng = np.random.default_rng(seed)
    order = rng.permutation(GRID * GRID)
    sync = np.zeros(GRID * GRID, dtype=bool)
    sync[order[: GRID * GRID // 2]] = True
    bit = np.full(GRID * GRID, -1, dtype=np.int16)
    data = order[GRID * GRID // 2 :]
    bit[data] = np.arange(data.size) % PAYLOAD_BITS
    sign = rng.choice(np.array([-1.0, 1.0], dtype=np.float32), GRID * GRID)
    return Layout(sync.reshape(GRID, GRID), sign.reshape(GRID, GRID), bit.reshape(GRID, GRID))


def chip_values(bits: NDArray[np.uint8]) -> F32:
    """Every chip's ±1 value for a payload (GRID × GRID)."""
    lay = layout()
    data_sign = np.where(bits[np.maximum(lay.bit, 0)] > 0, 1.0, -1.0).astype(np.float32)
    return np.where(lay.sync, lay.sign, lay.sign * data_sign).astype(np.float32)


def render(chips: F32) -> F32:
    """Chips (GRID × GRID) as a seamless TILE_PX × TILE_PX float tile of unit RMS
    (or zero, for all-zero chips)."""
    tile = np.kron(chips, np.ones((CHIP_PX, CHIP_PX), dtype=np.float32))
    # Soften periodically: blur a 3×3 repetition and keep the middle, so tiles join
    # without a seam.
    big = np.tile(tile, (3, 3))
    big = cv2.GaussianBlur(big, (0, 0), _SOFTEN_SIGMA_PX)
    tile = big[TILE_PX : 2 * TILE_PX, TILE_PX : 2 * TILE_PX]
    rms = float(np.sqrt(np.mean(tile * tile)))
    return (tile / rms if rms > 0 else tile).astype(np.float32)


@cache
def known_template() -> F32:
    """What every mark of this format has in common, zero mean and unit norm: the sync
    chips, and the data chips of the fixed payload bits (product name and version) with
    their signs; the day's chips are zero. Detection correlates against it: five sixths
    of the chips vote for the offset, not only the sync half."""
    lay = layout()
    head = fixed_bits()
    bit = np.maximum(lay.bit, 0)
    known = lay.sync | (lay.bit < FIXED_BITS)
    data_sign = np.where(head[np.minimum(bit, FIXED_BITS - 1)] > 0, 1.0, -1.0)
    chips = np.where(lay.sync, lay.sign, lay.sign * data_sign)
    tile = render(np.where(known, chips, 0.0).astype(np.float32))
    tile -= tile.mean()
    return (tile / np.linalg.norm(tile)).astype(np.float32)
