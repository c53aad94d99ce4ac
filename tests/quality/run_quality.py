"""`make quality`: swap every DEV and WIDE pair like `fusecam swap`, judge them, print one table.

Usage: .venv/bin/python -m tests.quality.run_quality OUT_DIR [--sets dev,wide] [--limit N]
       [--no-judge] [--no-clips] [--set MODULE.ATTR=PYEXPR] [--swap FIELD=PYEXPR,...]

Each pair gets fresh stages (no tracking carried between images), exactly as a
`fusecam swap --source S --target T --output OUT.png` call would, but in one process so
the models load once. Writes OUT_DIR/<set>/ outputs, OUT_DIR/<set>/sheet_*.png contact
sheets (source | target | output face crops), OUT_DIR/{dev,wide,combined}.json from the
judge, and prints the table of the issue's targets for DEV, WIDE and both together, then
the eye, mouth and gaze carry of the two test clips (`judge video`). The
gallery is always WIDE's manifest (all 42 identities), as its README asks.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime as dt
import functools
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.core.settings import EngineSettings
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.swap.library import SourceFaceError, SourceLibrary
from engine.tools.offline import swap_image, swap_video
from engine.watermark.embed import Watermarker

# Every output carries the invisible watermark as users get it, but its payload holds
# the day, and a different day's mark moved the clips' carry slopes by up to 0.4
# (docs/swap.md): `make quality` pins the day, so runs on different days score the
# same frames.
QUALITY_DAY = dt.date(2026, 12, 7)


_UNPINNED_MARK = Watermarker.mark


def pinned_mark() -> functools.partialmethod[Any]:
    """`Watermarker.mark` with `QUALITY_DAY`'s payload, for a test to patch in (its
    monkeypatch undoes it afterwards)."""
    return functools.partialmethod(_UNPINNED_MARK, day=QUALITY_DAY)


def pin_mark_day() -> None:
    """Mark every frame this process writes with `QUALITY_DAY`'s payload. Only for this
    tool's own process (its `main`): imported by the tests, it changes nothing."""
    Watermarker.mark = pinned_mark()  # type: ignore[method-assign,assignment]


ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT.parent / "shared" / "testdata"
JUDGE = ROOT.parent / "shared" / "tools" / "facejudge" / "judge"
SETS = {"dev": TESTDATA / "pairs_dev.tsv", "wide": TESTDATA / "wide" / "pairs_wide.tsv"}
GALLERY = TESTDATA / "wide"

# (label, aggregate key, format, target) — the targets, all at once.
COLUMNS = (
    ("found %", "faces_found_pct", "{:.1f}", "100"),
    ("ID@1 %", "retrieval_at1_pct", "{:.1f}", ">= 95"),
    ("LSO %", "retrieval_loo_at1_pct", "{:.1f}", ">= 75"),
    ("pose deg", "pose_err_deg_found_only", "{:.2f}", "<= 1.2"),
    ("expr", "expr_err_found_only", "{:.4f}", "<= 0.030"),
    ("outside %", "outside_changed_frac_found_only", "{:.3%}", "<= 0.1 %"),
    ("|seam grad|", "seam_grad_abs", "{:.3f}", "<= 0.08"),
    ("seam dE", "seam_color", "{:+.2f}", "|.| <= 0.5"),
    ("|sharp log2|", "face_sharpness_abs_log2", "{:.2f}", "<= 0.35"),
    ("sharp log2", "face_sharpness_log2", "{:+.2f}", ""),
    # Judge 1.2: what the face's inside adds (pairs that pass by eye scored 0-0.035),
    # how far its skin colour moved, and the target's expression as a viewer reads it.
    ("skin art", "skin_artifact", "{:.4f}", "<= 0.010"),
    ("skin art p90", "skin_artifact_p90", "{:.4f}", "<= 0.030"),
    ("skin art max", "skin_artifact_max", "{:.3f}", "<= 0.050"),
    ("tone dE", "skin_tone_dE", "{:.2f}", "<= 2.0"),
    ("tone dE max", "skin_tone_dE_max", "{:.1f}", "<= 5"),
    ("act eyes", "action_eyes", "{:.4f}", "<= 0.015"),
    ("act mouth", "action_mouth", "{:.4f}", ""),
    ("act smile", "action_smile", "{:.4f}", ""),
    ("act err", "action_err", "{:.4f}", "<= 0.015"),
)


@dataclasses.dataclass(frozen=True)
class Pair:
    source: Path
    target: Path
    output: str  # file name under the set's output folder
    source_identity: str


def read_pairs(path: Path) -> list[Pair]:
    with path.open() as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        Pair(
            (path.parent / r["source"]).resolve(),
            (path.parent / r["target"]).resolve(),
            r["output"],
            r["source_identity"],
        )
        for r in rows
    ]


def settings_from(overrides: str) -> EngineSettings:
    """`FIELD=PYEXPR,...`: swap/compositor fields by name, or SECTION.FIELD."""
    base = EngineSettings()
    for item in filter(None, overrides.split(",")):
        key, value = item.split("=", 1)
        if "." in key:
            part, key = key.split(".", 1)
        else:
            part = "swap" if hasattr(base.swap, key) else "compositor"
        section = dataclasses.replace(getattr(base, part), **{key: eval(value)})  # dev tool
        base = dataclasses.replace(base, **{part: section})
    return base


def face_box(library: SourceLibrary, image: np.ndarray) -> tuple[int, int, int, int]:
    faces = library.analyzer.analyze_image(image)
    if not faces or faces[0].landmarks is None:
        return 0, 0, image.shape[1], image.shape[0]
    lm = faces[0].landmarks[:, :2]
    (x0, y0), (x1, y1) = lm.min(axis=0), lm.max(axis=0)
    cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 0.75
    return int(cx - half), int(cy - half), int(cx + half), int(cy + half)


def _tile(image: np.ndarray, box: tuple[int, int, int, int], label: str = "") -> np.ndarray:
    x0, y0, x1, y1 = box
    pad = max(0, -x0, -y0, x1 - image.shape[1], y1 - image.shape[0])
    padded = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT)
    crop = padded[y0 + pad : y1 + pad, x0 + pad : x1 + pad]
    tile = cv2.resize(crop, (256, 256), interpolation=cv2.INTER_AREA)
    if label:
        cv2.putText(tile, label, (4, 250), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 255), 1)
    return tile


def write_sheets(library: SourceLibrary, done: list[tuple[Pair, Path]], folder: Path) -> None:
    """Face crops, 256 px each: source | target | output, five pairs a sheet."""
    rows = []
    for pair, out in done:
        source, target = cv2.imread(str(pair.source)), cv2.imread(str(pair.target))
        output = cv2.imread(str(out))
        box = face_box(library, target)
        rows.append(
            np.hstack(
                [
                    _tile(source, face_box(library, source), pair.source.stem),
                    _tile(target, box, pair.target.stem),
                    _tile(output, box),
                ]
            )
        )
    for i in range(0, len(rows), 5):
        cv2.imwrite(str(folder / f"sheet_{i // 5:02d}.png"), np.vstack(rows[i : i + 5]))


def swap_set(
    pairs: list[Pair], folder: Path, base: EngineSettings, library: SourceLibrary
) -> list[float]:
    folder.mkdir(parents=True, exist_ok=True)
    times = []
    done = []
    for pair in pairs:
        (folder / pair.output).unlink(missing_ok=True)
        try:
            settings = with_sources(base, library, [pair.source])
        except SourceFaceError as exc:
            # As `fusecam swap` would: no output. The judge counts a missing output as a
            # failure on every metric, so this is never hidden.
            print(f"no output for {pair.output}: {exc}", file=sys.stderr)
            continue
        engine = Engine(build_stages(settings, library=library), settings)
        t0 = time.perf_counter()
        # No visible label: the judge scores the swap, not the badge (the watermark stays).
        swap_image(engine, pair.target, folder / pair.output, label=False)
        times.append(time.perf_counter() - t0)
        done.append((pair, folder / pair.output))
    write_sheets(library, done, folder)
    return times


def write_pairs(pairs: list[tuple[Pair, str]], path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(["source", "target", "output", "source_identity"])
        for pair, output in pairs:
            writer.writerow([pair.source, pair.target, output, pair.source_identity])


def judge(pairs_file: Path, outputs: Path, json_out: Path) -> dict[str, float]:
    cmd = [str(JUDGE), "batch", "--workers", "2", "--pairs", str(pairs_file)]
    cmd += ["--outputs", str(outputs), "--gallery", str(GALLERY), "--json", str(json_out)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    report = json.loads(json_out.read_text())
    aggregate: dict[str, float] = report["aggregate"]
    # The judge gives means; a few bad pairs are what a viewer remembers, so the tail too.
    # A pair without an output counts with the judge's failure values.
    skin = np.array([item.get("skin_artifact", 1.0) for item in report["items"]])
    tone = np.array([item.get("skin_tone_dE", 40.0) for item in report["items"]])
    if len(skin):
        aggregate["skin_artifact_p90"] = float(np.percentile(skin, 90))
        aggregate["skin_artifact_max"] = float(skin.max())
        aggregate["skin_tone_dE_max"] = float(tone.max())
    return aggregate


def several_photos(out: Path, base: EngineSettings, library: SourceLibrary) -> str:
    """Each DEV person with several photos, swapped onto every DEV target of someone
    else, from each photo alone and from all of them together: does the gallery's
    "several photos of one person" raise identity? (Leave-source-out cannot be scored
    for the combined source, so identity here is retrieval@1 and the rank.)"""
    dev = read_pairs(SETS["dev"])
    photos: dict[str, list[Path]] = {}
    for pair in dev:
        if pair.source not in photos.setdefault(pair.source_identity, []):
            photos[pair.source_identity].append(pair.source)
    people = {who: paths for who, paths in photos.items() if len(paths) > 1}
    # The manifest lists more photos of these people than the pairs use as sources.
    manifest = TESTDATA / "MANIFEST.tsv"
    with manifest.open() as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            path = (TESTDATA / row["file"]).resolve()
            who = row["identity"]
            image = path.suffix.lower() in (".jpg", ".jpeg", ".png")
            if image and who in photos and path not in photos[who]:
                photos[who].append(path)
                people[who] = photos[who]
    targets = sorted({p.target for p in dev})
    rows: dict[str, list[tuple[Pair, str]]] = {"one photo": [], "all photos": []}
    folder = out / "several"
    folder.mkdir(parents=True, exist_ok=True)
    for who, paths in people.items():
        for target in targets:
            if target in paths:
                continue
            for i, path in enumerate(paths):
                name = f"{who}_{i}__{target.stem}.png"
                _swap_one(library, base, [path], target, folder / name)
                rows["one photo"].append((Pair(path, target, name, who), f"several/{name}"))
            name = f"{who}_all__{target.stem}.png"
            _swap_one(library, base, paths, target, folder / name)
            rows["all photos"].append((Pair(paths[0], target, name, who), f"several/{name}"))
    lines = ["| source | n | ID@1 % | mean rank | d_src |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for label, chosen in rows.items():
            pairs_file = Path(tmp) / "several.tsv"
            write_pairs(chosen, pairs_file)
            json_out = out / f"several_{label.replace(' ', '_')}.json"
            agg = judge(pairs_file, out, json_out)
            items = json.loads(json_out.read_text())["items"]
            ranks = [it.get("retrieval_rank") or 43 for it in items]
            lines.append(
                f"| {label} | {agg['n_items']} | {agg['retrieval_at1_pct']:.1f} | "
                f"{np.mean(ranks):.2f} | {agg['d_src_found_only']:.3f} |"
            )
    return "\n".join(lines)


def _swap_one(
    library: SourceLibrary, base: EngineSettings, sources: list[Path], target: Path, out: Path
) -> None:
    settings = with_sources(base, library, sources)
    engine = Engine(build_stages(settings, library=library), settings)
    swap_image(engine, target, out, label=False)  # as above: the judge scores the swap


# The two clips and their sources: eye, mouth and gaze carry (judge video).
CLIPS = (
    ("obama_1.mp4", "robert_downey_jr_2.jpg"),
    ("lin_manuel_miranda_1.mp4", "obama_2.jpg"),
)
CARRY = ("eyes_open", "mouth_open", "gaze_x", "gaze_y")


def judge_clip(
    clip: str,
    face: str,
    base: EngineSettings,
    library: SourceLibrary,
    folder: Path,
    every: int = 5,
) -> dict[str, float]:
    """`video/<clip>` swapped from `faces/<face>` as `fusecam swap` does, into `folder`,
    and the aggregate of `judge video` on it (every `every`-th frame fully scored)."""
    source, target = TESTDATA / "faces" / face, TESTDATA / "video" / clip
    settings = with_sources(base, library, [source])
    output = folder / clip
    swap_video(Engine(build_stages(settings, library=library), settings), target, output)
    report = folder / f"{Path(clip).stem}.json"
    cmd = [str(JUDGE), "video", "--source", str(source), "--target", str(target)]
    cmd += ["--output", str(output), "--every", str(every), "--json", str(report)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    scores = json.loads(report.read_text())
    aggregate: dict[str, float] = scores.get("aggregate", scores)
    return aggregate


# The judge's own environment (its `judge` script makes it), for tools/clip_series.py.
JUDGE_PYTHON = (
    Path(os.environ.get("FACEJUDGE_VENV", Path.home() / ".cache" / "facejudge" / "venv"))
    / "bin"
    / "python"
)
# A frame counts as one face's when the judge's output mesh lies this close to its
# target mesh (mean landmark distance, inter-ocular distances): on an audience shot its
# output mesh landed on another person 0.2-10 IODs away and decided a clip's slopes.
SAME_FACE_IOD = 0.1


def same_face_carry(target: Path, output: Path, series: Path) -> dict[str, float]:
    """The carry slopes and r (as `judge video` takes them) over the frames where the
    judge's two meshes lie on one face, from tools/clip_series.py's per-frame readings;
    `frames` counts them."""
    cmd = [str(JUDGE_PYTHON), str(ROOT / "tools" / "clip_series.py")]
    cmd += [str(target), str(output), str(series)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = [r for r in json.loads(series.read_text()) if r.get("apart", 1e9) < SAME_FACE_IOD]
    out: dict[str, float] = {"frames": float(len(rows))}
    for key in CARRY:
        pairs = (
            [(r["gT"][key], r["gO"][key]) for r in rows if "gT" in r]
            if key.startswith("gaze")
            else [(r["T"][key], r["O"][key]) for r in rows]
        )
        x, y = (np.array(v, np.float64) for v in zip(*pairs, strict=True))
        x0, y0 = x - x.mean(), y - y.mean()
        out[f"{key}_carry_slope"] = float((x0 * y0).sum() / (x0 * x0).sum())
        out[f"{key}_carry_r"] = float((x0 * y0).sum() / np.sqrt((x0 * x0).sum() * (y0 * y0).sum()))
    return out


def clip_carry(out: Path, base: EngineSettings, library: SourceLibrary) -> str:
    """Each clip's carry slope (1 = the target's motion carried in full), its r, and
    the jitter; then the same over the frames where the judge's meshes lie on one face
    (`same_face_carry`)."""
    folder = out / "clips"
    folder.mkdir(parents=True, exist_ok=True)
    head = [f"{k} slope (r)" for k in CARRY]
    lines = ["| clip | " + " | ".join(head) + " | jitter |", "|---|" + "---|" * (len(head) + 1)]

    def cells(scores: dict[str, float]) -> str:
        return " | ".join(
            f"{scores[f'{k}_carry_slope']:.2f} ({scores[f'{k}_carry_r']:.2f})" for k in CARRY
        )

    for clip, face in CLIPS:
        scores = judge_clip(clip, face, base, library, folder)
        lines.append(f"| {clip} | {cells(scores)} | {scores['temporal_jitter']:.3f} |")
        same = same_face_carry(
            TESTDATA / "video" / clip, folder / clip, folder / f"{Path(clip).stem}_series.json"
        )
        lines.append(f"| {clip}, same face ({same['frames']:.0f} frames) | {cells(same)} | |")
    return "\n".join(lines)


def table(results: dict[str, dict[str, float]]) -> str:
    head = ["set", "n", *(c[0] for c in COLUMNS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, agg in results.items():
        cells = [name, str(agg["n_items"])]
        cells += [fmt.format(agg.get(key, float("nan"))) for _, key, fmt, _ in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("| target | | " + " | ".join(c[3] for c in COLUMNS) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sets", default="dev,wide")
    parser.add_argument("--limit", type=int, help="first N pairs of each set")
    parser.add_argument("--no-judge", action="store_true")
    parser.add_argument(
        "--several", action="store_true", help="also compare one photo with all of a person's"
    )
    parser.add_argument("--no-clips", action="store_true", help="skip the two clips' carry")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.ATTR=PYEXPR")
    parser.add_argument("--swap", default="", metavar="FIELD=PYEXPR,...")
    args = parser.parse_args()
    if not TESTDATA.is_dir() or (not args.no_judge and not JUDGE.exists()):
        # A developer tool: the photos and the judge live in the development workspace.
        print(
            f"make quality needs the development workspace beside the checkout: "
            f"{TESTDATA} and {JUDGE} (not part of Fusecam; users do not need them)",
            file=sys.stderr,
        )
        return 2
    pin_mark_day()
    for item in args.set:
        name, value = item.split("=", 1)
        module, attr = name.rsplit(".", 1)
        setattr(importlib.import_module(module), attr, eval(value))  # dev tool only
    base = settings_from(args.swap)
    library = SourceLibrary()
    chosen = {name: read_pairs(SETS[name])[: args.limit] for name in args.sets.split(",")}
    all_times: list[float] = []
    for name, pairs in chosen.items():
        all_times += swap_set(pairs, args.out / name, base, library)
    print(f"{len(all_times)} swaps, median {np.median(all_times) * 1000:.1f} ms per image")
    if args.no_judge:
        return 0
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        combined: list[tuple[Pair, str]] = []
        for name, pairs in chosen.items():
            named = [(p, f"{name}/{p.output}") for p in pairs]
            write_pairs(named, Path(tmp) / f"{name}.tsv")
            results[name] = judge(Path(tmp) / f"{name}.tsv", args.out, args.out / f"{name}.json")
            combined += named
        if len(chosen) > 1:
            write_pairs(combined, Path(tmp) / "combined.tsv")
            results["combined"] = judge(
                Path(tmp) / "combined.tsv", args.out, args.out / "combined.json"
            )
    print(table(results))
    if not args.no_clips:
        print(clip_carry(args.out, base, library))
    if args.several:
        print(several_photos(args.out, base, library))
    return 0


if __name__ == "__main__":
    sys.exit(main())
