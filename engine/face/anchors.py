"""SSD anchor grids for the BlazeFace detectors (MediaPipe's SsdAnchorsCalculator layout)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class AnchorSpec:
    input_size: int
    strides: tuple[int, ...]
    # Anchors per cell for each layer; layers with equal strides share one grid.
    interpolated_scale: bool

    def generate(self) -> NDArray[np.float32]:
        """(N, 2) anchor centres in [0, 1]; BlazeFace uses fixed unit-size anchors."""
        centres: list[NDArray[np.float32]] = []
        layer = 0
        while layer < len(self.strides):
            stride = self.strides[layer]
            per_cell = 0
            while layer < len(self.strides) and self.strides[layer] == stride:
                # One anchor per aspect ratio (only 1.0 here) plus the interpolated one.
                per_cell += 2 if self.interpolated_scale else 1
                layer += 1
            cells = int(np.ceil(self.input_size / stride))
            grid = (np.arange(cells, dtype=np.float32) + 0.5) / cells
            ys, xs = np.meshgrid(grid, grid, indexing="ij")
            cell_centres = np.stack([xs.ravel(), ys.ravel()], axis=1)
            centres.append(np.repeat(cell_centres, per_cell, axis=0))
        return np.concatenate(centres).astype(np.float32)


# Values from MediaPipe's face_detection_short_range / full_range graphs.
SHORT_RANGE = AnchorSpec(128, (8, 16, 16, 16), interpolated_scale=True)  # 896 anchors
FULL_RANGE = AnchorSpec(192, (4,), interpolated_scale=False)  # 2304 anchors
