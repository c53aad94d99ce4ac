"""What an image output keeps of its target: alpha and 16-bit depth where the format can
hold them (the swap itself works on 8-bit BGR), and a sentence for what it cannot.

The target's transparency goes back as it was (the swap changes colour, not shape). Its
16-bit depth is kept by adding the swap's change to the original pixels, so that where
the swap changed nothing the output is the target to the last bit.
"""

from __future__ import annotations

import numpy as np

from engine.core.exif import TURNS
from engine.core.imageio import Picture, to_uint8
from engine.core.types import Frame

HOLDS_ALPHA = frozenset({".png", ".webp", ".tif", ".tiff"})
HOLDS_16_BITS = frozenset({".png", ".tif", ".tiff"})


def like_target(target: Picture, result: Frame, suffix: str) -> tuple[np.ndarray, list[str]]:
    """The 8-bit BGR `result` given the target's alpha and depth where `suffix` holds
    them, and what the user should hear (a rotation applied, something dropped)."""
    suffix = suffix.lower()
    notes = []
    if target.orientation in TURNS:
        notes.append(
            f"the target's EXIF orientation was applied ({TURNS[target.orientation]}); "
            "the output is stored upright"
        )
    pixels: np.ndarray = result
    source = target.pixels
    if source.dtype == np.uint16 and suffix in HOLDS_16_BITS:
        before = to_uint8(_three(source)).astype(np.int32)
        change = (result.astype(np.int32) - before) * 257
        pixels = np.clip(_three(source).astype(np.int32) + change, 0, 65535).astype(np.uint16)
    elif source.dtype != np.uint8:
        notes.append(
            f"the target's {_depth(source)} pixels were written as 8 bits: {suffix} cannot "
            "hold more" + (" (use .png or .tiff)" if source.dtype == np.uint16 else "")
        )
    alpha = target.alpha
    if alpha is not None and suffix in HOLDS_ALPHA:
        if pixels.dtype != alpha.dtype:
            alpha = to_uint8(alpha) if pixels.dtype == np.uint8 else alpha.astype(np.uint16) * 257
        pixels = np.dstack([pixels, alpha])
    elif alpha is not None:
        notes.append(
            f"the target's transparency was dropped: {suffix} cannot hold it "
            "(use .png, .webp or .tiff)"
        )
    return pixels, notes


def _three(pixels: np.ndarray) -> np.ndarray:
    """The colour channels, as BGR."""
    if pixels.ndim == 2:
        return np.repeat(pixels[:, :, None], 3, axis=2)
    if pixels.shape[2] == 1:
        return np.repeat(pixels, 3, axis=2)
    return pixels[:, :, :3]


def _depth(pixels: np.ndarray) -> str:
    return "16-bit" if pixels.dtype == np.uint16 else str(pixels.dtype)
