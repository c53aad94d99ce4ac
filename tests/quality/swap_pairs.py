"""Dev tool: swap every pair of a pairs.tsv like `fusecam swap` does, then judge them.

Usage: .venv/bin/python tests/quality/swap_pairs.py OUT_DIR [--pairs TSV] [--judge]
Each pair gets fresh stages (no tracking carried between images), exactly as a
`fusecam swap --source S --target T --output OUT.png` call would, but in one process so
the models load once. Also writes OUT_DIR/sheet_*.png contact sheets (source|target|output).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from engine.core.settings import EngineSettings
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.offline import swap_image
from engine.runtime.pipeline import Engine
from engine.swap.library import SourceLibrary

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT.parent / "shared" / "testdata"
JUDGE = ROOT.parent / "shared" / "tools" / "facejudge" / "judge"


def face_box(library: SourceLibrary, path: Path) -> tuple[int, int, int, int]:
    img = cv2.imread(str(path))
    faces = library.analyzer.analyze_image(img)
    if not faces or faces[0].landmarks is None:
        return 0, 0, img.shape[1], img.shape[0]
    lm = faces[0].landmarks[:, :2]
    (x0, y0), (x1, y1) = lm.min(axis=0), lm.max(axis=0)
    cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 0.75
    return int(cx - half), int(cy - half), int(cx + half), int(cy + half)


def sheet(library: SourceLibrary, rows: list[tuple[Path, Path, Path]], out: Path) -> None:
    """Face crops side by side: source | target | output, 256 px each."""

    def tile(p: Path, box: tuple[int, int, int, int]) -> np.ndarray:
        img = cv2.imread(str(p))
        x0, y0, x1, y1 = box
        pad = max(0, -x0, -y0, x1 - img.shape[1], y1 - img.shape[0])
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT)
        crop = img[y0 + pad : y1 + pad, x0 + pad : x1 + pad]
        return cv2.resize(crop, (256, 256), interpolation=cv2.INTER_AREA)

    lines = []
    for s, t, o in rows:
        tb = face_box(library, t)
        lines.append(np.hstack([tile(s, face_box(library, s)), tile(t, tb), tile(o, tb)]))
    cv2.imwrite(str(out), np.vstack(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--pairs", type=Path, default=TESTDATA / "pairs_dev.tsv")
    parser.add_argument("--judge", action="store_true")
    parser.add_argument("--limit", type=int)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="MODULE.ATTR=PYEXPR",
        help="override a module constant for an experiment",
    )
    parser.add_argument(
        "--swap",
        default="",
        metavar="FIELD=PYEXPR,...",
        help="settings overrides: swap/compositor fields by name (shape_alpha=0.5) "
        "or SECTION.FIELD (enhancer.mode='builtin')",
    )
    args = parser.parse_args()
    for item in args.set:
        name, value = item.split("=", 1)
        module, attr = name.rsplit(".", 1)
        setattr(importlib.import_module(module), attr, eval(value))  # dev tool only
    base = EngineSettings()
    for item in filter(None, args.swap.split(",")):
        key, value = item.split("=", 1)
        if "." in key:  # section.field, e.g. enhancer.mode
            part, key = key.split(".", 1)
        else:
            part = "swap" if hasattr(base.swap, key) else "compositor"
        base = dataclasses.replace(
            base, **{part: dataclasses.replace(getattr(base, part), **{key: eval(value)})}
        )
    args.out.mkdir(parents=True, exist_ok=True)
    library = SourceLibrary()
    rows = list(csv.DictReader(args.pairs.open(), delimiter="\t"))[: args.limit]
    done, times = [], []
    for row in rows:
        source, target = TESTDATA / row["source"], TESTDATA / row["target"]
        settings = with_sources(base, library, [source])
        engine = Engine(build_stages(settings, library=library), settings)
        t0 = time.perf_counter()
        swap_image(engine, target, args.out / row["output"])
        times.append(time.perf_counter() - t0)
        done.append((source, target, args.out / row["output"]))
    print(f"{len(done)} swaps, median {np.median(times) * 1000:.1f} ms per image")
    for i in range(0, len(done), 5):
        sheet(library, done[i : i + 5], args.out / f"sheet_{i // 5:02d}.png")
    if args.judge:
        cmd = [
            str(JUDGE),
            "batch",
            "--workers",
            "2",
            "--pairs",
            str(args.pairs),
            "--outputs",
            str(args.out),
            "--gallery",
            str(TESTDATA / "faces"),
            "--json",
            str(args.out / "judge.json"),
        ]
        sys.exit(subprocess.call(cmd))


if __name__ == "__main__":
    main()
