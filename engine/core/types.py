"""Shared array vocabulary (see DESIGN.md: frame, crop, mask, affine, landmarks)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Frame = NDArray[np.uint8]  # full image, H×W×3 BGR
Crop = NDArray[np.uint8]  # aligned face image
Mask = NDArray[np.float32]  # 0..1
Affine = NDArray[np.float64]  # 2×3
Landmarks = NDArray[np.float32]  # N×3, pixels (x, y, relative depth)
F32 = NDArray[np.float32]  # any float32 array: points, vectors, coefficients, float images
F64 = NDArray[np.float64]  # double-precision fits, transforms and their inputs
