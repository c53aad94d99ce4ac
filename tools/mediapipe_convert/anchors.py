"""SSD anchors (a port of MediaPipe's SsdAnchorsCalculator) and box decoding: they check
the anchor options against each detector's box count and find a face in the check photo."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def _anchor_scale(min_scale: float, max_scale: float, index: int, count: int) -> float:
    if count == 1:
        return (min_scale + max_scale) * 0.5
    return min_scale + (max_scale - min_scale) * index / (count - 1.0)


def generate_anchors(o: dict[str, Any]) -> np.ndarray:
    """Return ``(N, 4)`` anchors ``(x_center, y_center, w, h)`` in normalized units.

    Used here to check that the options read from the wheel give exactly as many anchors
    as the model has boxes, and to decode a detection for the real-face check.
    """
    strides: list[int] = o["strides"]
    anchors: list[tuple[float, float, float, float]] = []
    layer = 0
    while layer < o["num_layers"]:
        ratios: list[float] = []
        scales: list[float] = []
        last = layer
        while last < len(strides) and strides[last] == strides[layer]:
            scale = _anchor_scale(o["min_scale"], o["max_scale"], last, len(strides))
            if last == 0 and o["reduce_boxes_in_lowest_layer"]:
                ratios += [1.0, 2.0, 0.5]
                scales += [0.1, scale, scale]
            else:
                for ratio in o["aspect_ratios"]:
                    ratios.append(ratio)
                    scales.append(scale)
                if o["interpolated_scale_aspect_ratio"] > 0.0:
                    nxt = (
                        1.0
                        if last == len(strides) - 1
                        else _anchor_scale(o["min_scale"], o["max_scale"], last + 1, len(strides))
                    )
                    scales.append(math.sqrt(scale * nxt))
                    ratios.append(o["interpolated_scale_aspect_ratio"])
            last += 1
        sizes = [(s * math.sqrt(r), s / math.sqrt(r)) for r, s in zip(ratios, scales, strict=True)]
        stride = strides[layer]
        fh = math.ceil(o["input_size_height"] / stride)
        fw = math.ceil(o["input_size_width"] / stride)
        for y in range(fh):
            for x in range(fw):
                for size_w, size_h in sizes:
                    xc = (x + o["anchor_offset_x"]) / fw
                    yc = (y + o["anchor_offset_y"]) / fh
                    w, h = (1.0, 1.0) if o["fixed_anchor_size"] else (size_w, size_h)
                    anchors.append((xc, yc, w, h))
        layer = last
    return np.asarray(anchors, dtype=np.float32)


def decode_best_box(
    raw_boxes: np.ndarray, raw_scores: np.ndarray, anchors: np.ndarray, d: dict[str, Any]
) -> tuple[float, np.ndarray]:
    """Decode the highest-scoring box as ``(score, [xmin, ymin, xmax, ymax])`` (normalized).

    Mirrors TensorsToDetectionsCalculator for ``reverse_output_order`` models; only the
    best box is needed to crop a face for the landmark model check.
    """
    scores = np.clip(
        raw_scores.reshape(-1).astype(np.float64),
        -d["score_clipping_thresh"],
        d["score_clipping_thresh"],
    )
    scores = 1.0 / (1.0 + np.exp(-scores)) if d["sigmoid_score"] else scores
    i = int(np.argmax(scores))
    r = raw_boxes.reshape(-1, d["num_coords"])[i, d["box_coord_offset"] :]
    ax, ay, aw, ah = anchors[i]
    xc = r[0] / d["x_scale"] * aw + ax
    yc = r[1] / d["y_scale"] * ah + ay
    w = r[2] / d["w_scale"] * aw
    h = r[3] / d["h_scale"] * ah
    return float(scores[i]), np.array([xc - w / 2, yc - h / 2, xc + w / 2, yc + h / 2])
