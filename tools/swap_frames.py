"""Dev-time: did a change move the swap's pixels? Swap the first frames of the test
videos and a few DEV photo pairs offline (deterministic: frames stamped with their place
in the video) and save the results; compare two such files frame by frame.

    # in the tree before the change, then in the tree after it:
    PYTHONPATH=. .venv/bin/python tools/swap_frames.py dump /tmp/before.npz
    PYTHONPATH=. .venv/bin/python tools/swap_frames.py dump /tmp/after.npz
    PYTHONPATH=. .venv/bin/python tools/swap_frames.py compare /tmp/before.npz /tmp/after.npz

With `PYTHONPATH=.` from the tree's root the tree's own `engine` is imported (the
environment's editable install may point at another checkout). A max |diff| of 1 grey
level is float rounding.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from engine.core.imageio import read_picture
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.types import Frame
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources.video import VideoFileSource
from engine.swap.library import SourceLibrary

DATA = Path(__file__).resolve().parents[2] / "shared" / "testdata"
VIDEOS = ("video/obama_1.mp4", "video/lin_manuel_miranda_1.mp4")
VIDEO_SOURCE = "faces/robert_downey_jr_2.jpg"
# The videos as they are and as `fusecam bench` sees them: at 720p the face is rendered
# on a grid coarser than the frame (engine/swap/renderer.py WORK_IOD_PX), as they are
# not.
SIZES: tuple[tuple[int, int] | None, ...] = (None, (1280, 720))
FRAMES = 40
PAIRS = 6  # DEV pairs, spread over the list
FRAME_NS = round(1e9 / 30.0)


def _swapped(source: Path, frames: Iterator[Frame]) -> Iterator[Frame]:
    library = SourceLibrary()
    settings = with_sources(EngineSettings(), library, [source])
    session = LiveSession(Engine(build_stages(settings, library=library), settings))
    try:
        for name, reason in session.prepare_stages().items():
            raise RuntimeError(f"{name}: {reason}")
        for index, frame in enumerate(frames):
            frame.flags.writeable = False
            packet = session.engine.process(FramePacket(index, index * FRAME_NS, frame))
            if packet.error is not None:
                raise RuntimeError(f"frame {index}: {packet.error}")
            yield np.array(packet.result)
    finally:
        session.stop()


def _video(path: Path, count: int, size: tuple[int, int] | None) -> Iterator[Frame]:
    source = VideoFileSource(path, realtime=False, size=size)
    source.open()
    for index, frame in enumerate(source.iter_frames()):
        if index >= count:
            return
        yield frame


def _pairs(count: int) -> list[tuple[str, str]]:
    with (DATA / "pairs_dev.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    step = max(1, len(rows) // count)
    return [(r["source"], r["target"]) for r in rows[::step][:count]]


def dump(out: Path, frames: int, pairs: int) -> None:
    results: dict[str, np.ndarray] = {}
    for video in VIDEOS:
        for size in SIZES:
            swapped = _swapped(DATA / VIDEO_SOURCE, _video(DATA / video, frames, size))
            label = f"@{size[0]}x{size[1]}" if size else ""
            for index, frame in enumerate(swapped):
                results[f"{Path(video).stem}{label}#{index:03d}"] = frame
    for source, target in _pairs(pairs):
        picture = read_picture(DATA / target).frame
        (frame,) = _swapped(DATA / source, iter([picture]))
        results[f"{Path(source).stem}->{Path(target).stem}"] = frame
    np.savez_compressed(out, **results)
    print(f"{len(results)} frames to {out}")


def compare(before: Path, after: Path) -> int:
    """Prints max and mean |diff| per frame; exit status 1 when any frame differs by
    more than a grey level."""
    a, b = np.load(before), np.load(after)
    worst = 0
    for key in a.files:
        diff = np.abs(a[key].astype(np.int16) - b[key].astype(np.int16))
        worst = max(worst, int(diff.max()))
        moved = diff > 0
        print(
            f"{key:48s} max {int(diff.max()):3d}  mean {float(diff.mean()):.4f}  "
            f"pixels moved {int(moved.sum()):6d}  >1: {int((diff > 1).sum()):6d}"
        )
    print(f"worst max |diff| {worst} over {len(a.files)} frames")
    return 0 if worst <= 1 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--frames", type=int, default=FRAMES)
    d.add_argument("--pairs", type=int, default=PAIRS)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.out, args.frames, args.pairs)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
