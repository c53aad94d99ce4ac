"""How far each swap's lip and brow colour is from the target's own (the judge looks at
neither).

For every pair of a `make quality` run (its combined.json), the bundled face mesh finds
the lips (the outer lip contour less the mouth's opening) and the brows
(`engine.swap.shading.BROWS`) on the target photo, the source photo and the output,
each mask eroded a pixel, and their mean colours are compared in CIELAB's a*, b* (hue
and saturation; lightness left out, as the lips' and brows' shading is the render's).
Prints, per run and feature, the mean / median / 90th percentile / max distance from
the output's to the target's, and from the source photo's to the target's as a
reference:

    .venv/bin/python tools/feature_colour_gap.py out/quality [more runs]
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
from engine.swap.shading import BROWS

MIN_PIXELS = 30
FEATURES = ("lips", "brows")
Colours = dict[str, NDArray[np.float64]]


def _masks(points: NDArray[np.floating], shape: tuple[int, ...]) -> dict[str, NDArray[np.uint8]]:
    topo = topology()

    def fill(*polygons: NDArray[np.floating], value: int = 1, into: NDArray[np.uint8]) -> None:
        cv2.fillPoly(into, [np.round(p).astype(np.int32) for p in polygons], value)

    lips = np.zeros(shape[:2], np.uint8)
    fill(points[topo.region("lips_outer")], into=lips)
    fill(points[topo.region("lips_inner")], value=0, into=lips)
    brows = np.zeros(shape[:2], np.uint8)
    fill(*(points[list(b)] for b in BROWS), into=brows)
    kernel = np.ones((3, 3), np.uint8)
    return {"lips": cv2.erode(lips, kernel), "brows": cv2.erode(brows, kernel)}


def feature_colours(analyzer: FaceAnalyzer, image: NDArray[np.uint8]) -> Colours:
    """The main face's mean lip and brow colours as CIELAB (a*, b*); a feature with too
    few pixels (or no face) is left out."""
    faces = analyzer.analyze_image(image)
    if not faces or faces[0].landmarks is None:
        return {}
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float64)
    found: Colours = {}
    for name, mask in _masks(faces[0].landmarks[:, :2], image.shape).items():
        if int(mask.sum()) >= MIN_PIXELS:
            found[name] = lab[mask > 0][:, 1:].mean(axis=0) - 128.0
    return found


def gaps(analyzer: FaceAnalyzer, run: Path) -> dict[str, tuple[list[float], list[float]]]:
    """Per feature: (output to target, source to target) a*b* distances of a run's pairs."""
    items = json.loads((run / "combined.json").read_text())["items"]
    seen: dict[str, Colours] = {}

    def photo(path: str) -> Colours:
        if path not in seen:
            seen[path] = feature_colours(analyzer, read_image(Path(path)))
        return seen[path]

    found: dict[str, tuple[list[float], list[float]]] = {f: ([], []) for f in FEATURES}
    for item in items:
        target, source = photo(item["target"]), photo(item["source"])
        output = feature_colours(analyzer, read_image(run / item["output"]))
        for name in FEATURES:
            if name in target and name in source and name in output:
                found[name][0].append(float(np.linalg.norm(output[name] - target[name])))
                found[name][1].append(float(np.linalg.norm(source[name] - target[name])))
    return found


def _summary(values: list[float]) -> str:
    v = np.asarray(values)
    return (
        f"mean {v.mean():.2f} median {np.median(v):.2f} "
        f"p90 {np.percentile(v, 90):.2f} max {v.max():.2f} (n {len(v)})"
    )


def main(runs: list[str]) -> int:
    analyzer = FaceAnalyzer.bundled(provider="cpu")
    for run in runs:
        for name, (output_gaps, source_gaps) in gaps(analyzer, Path(run)).items():
            if not output_gaps:
                print(f"{run}: no pair with {name} found")
                continue
            print(f"{run}: output {name} to target's, a*b*: {_summary(output_gaps)}")
            print(f"{run}: source photo's {name} to target's: {_summary(source_gaps)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
