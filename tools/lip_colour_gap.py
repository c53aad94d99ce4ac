"""How far each swap's lip colour is from the target's own (the judge does not look at lips).

For every pair of a `make quality` run (its combined.json), the lips (the outer lip
contour less the mouth's opening, eroded a pixel) are found by the bundled face mesh
on the target photo and on the output, and their mean colour compared in CIELAB's
a*, b* (hue and saturation; lightness left out: the lips' shading is the render's).
Prints, per run, the mean / median / 90th percentile / max distance to the target's
lips, and the same for the source photo's lips as a reference:

    .venv/bin/python tools/lip_colour_gap.py out/quality [more runs]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.imageio import read_image
from engine.face.analyzer import FaceAnalyzer
from engine.face.mesh import topology

MIN_PIXELS = 30


def lip_colour(analyzer: FaceAnalyzer, image: NDArray[np.uint8]) -> NDArray[np.float64] | None:
    """The main face's mean lip colour as CIELAB (a*, b*); None without a face or lips."""
    faces = analyzer.analyze_image(image)
    if not faces or faces[0].landmarks is None:
        return None
    points = faces[0].landmarks[:, :2]
    topo = topology()
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(points[topo.region("lips_outer")]).astype(np.int32)], 1)
    cv2.fillPoly(mask, [np.round(points[topo.region("lips_inner")]).astype(np.int32)], 0)
    mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
    if int(mask.sum()) < MIN_PIXELS:
        return None
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float64)[mask > 0]
    return np.asarray(lab[:, 1:].mean(axis=0) - 128.0)


def gaps(analyzer: FaceAnalyzer, run: Path) -> tuple[list[float], list[float]]:
    """(output to target, source to target) lip a*b* distances of one run's pairs."""
    items = json.loads((run / "combined.json").read_text())["items"]
    seen: dict[str, NDArray[np.float64] | None] = {}

    def photo(path: str) -> NDArray[np.float64] | None:
        if path not in seen:
            seen[path] = lip_colour(analyzer, read_image(Path(path)))
        return seen[path]

    output_gaps, source_gaps = [], []
    for item in items:
        target, source = photo(item["target"]), photo(item["source"])
        output = lip_colour(analyzer, read_image(run / item["output"]))
        if target is None or source is None or output is None:
            continue
        output_gaps.append(float(np.linalg.norm(output - target)))
        source_gaps.append(float(np.linalg.norm(source - target)))
    return output_gaps, source_gaps


def _summary(values: list[float]) -> str:
    v = np.asarray(values)
    return (
        f"mean {v.mean():.2f} median {np.median(v):.2f} "
        f"p90 {np.percentile(v, 90):.2f} max {v.max():.2f} (n {len(v)})"
    )


def main(runs: list[str]) -> int:
    analyzer = FaceAnalyzer.bundled(provider="cpu")
    for run in runs:
        output_gaps, source_gaps = gaps(analyzer, Path(run))
        if not output_gaps:
            print(f"{run}: no pair with lips found")
            continue
        print(f"{run}: output lips to target's, a*b*: {_summary(output_gaps)}")
        print(f"{run}: source photo's lips to target's: {_summary(source_gaps)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
