"""SSD anchor grids for the BlazeFace and palm detectors (MediaPipe's SsdAnchorsCalculator
layout), from the options engine/resources/models/manifest.json records beside each model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.models.errors import ManifestError
from engine.models.manifest import Manifest, load_manifest


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

    @classmethod
    def from_options(cls, options: Mapping[str, Any], where: str = "anchors") -> AnchorSpec:
        """From SsdAnchorsCalculator options (a manifest entry's `anchors`); refuses the
        options `generate` does not implement rather than decoding garbage."""
        size = options.get("input_size_height")
        strides = tuple(options.get("strides", ()))
        supported = (
            isinstance(size, int)
            and options.get("input_size_width") == size
            and strides
            and options.get("num_layers") == len(strides)
            and tuple(options.get("aspect_ratios", ())) == (1.0,)
            and options.get("fixed_anchor_size") is True
            and options.get("reduce_boxes_in_lowest_layer") is False
            and options.get("anchor_offset_x") == options.get("anchor_offset_y") == 0.5
        )
        if not supported:
            raise ManifestError(f"{where}: anchor options this detector cannot generate")
        assert isinstance(size, int)
        interpolated = float(options.get("interpolated_scale_aspect_ratio", 0.0)) > 0.0
        spec = cls(size, tuple(int(s) for s in strides), interpolated_scale=interpolated)
        count = len(spec.generate())
        if options.get("num_boxes") != count:
            raise ManifestError(f"{where}: {count} anchors, but num_boxes says otherwise")
        return spec


@cache
def _bundled_manifest() -> Manifest:
    return load_manifest()


def anchor_spec(model: str, manifest: Manifest | None = None) -> AnchorSpec:
    """The anchor grid of `model` (a bundled detector), as the manifest records it."""
    options = (manifest or _bundled_manifest()).get(model).raw.get("anchors")
    if not isinstance(options, Mapping):
        raise ManifestError(f"model {model!r}: the manifest records no anchors")
    return AnchorSpec.from_options(options, f"model {model!r}")
