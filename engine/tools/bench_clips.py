"""Test clips for `fusecam bench` built from two videos: one with scene cuts (the clips
alternate every `segment` frames, so the tracker loses the face and the detector must find
the other one) and one with two faces in view (the clips side by side, for `--faces all`).

    python -m engine.tools.bench_clips cuts A.mp4 B.mp4 OUT.mp4 [--size 1280x720]
    python -m engine.tools.bench_clips side-by-side A.mp4 B.mp4 OUT.mp4
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from engine.core.types import Frame
from engine.sources.base import centre_crop_box

SEGMENT_FRAMES = 30


class ClipError(RuntimeError):
    """An input clip cannot be read or the output cannot be written."""


def _frames(path: Path, size: tuple[int, int], crop: bool = True) -> Iterator[Frame]:
    """The clip's frames, centre-cropped to the aspect of `size` and resized to it (or,
    without `crop`, shrunk to fit inside it on black), looping from the start at its end."""
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise ClipError(f"{path}: cannot be opened as a video")
    try:
        read_any = False
        while True:
            ok, frame = capture.read()
            if not ok:
                if not read_any:
                    raise ClipError(f"{path}: no frames could be read")
                capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                continue
            read_any = True
            yield _fit(frame, size) if crop else _letterbox(frame, size)
    finally:
        capture.release()


def _fit(frame: Frame, size: tuple[int, int]) -> Frame:
    h, w = frame.shape[:2]
    zoom = max((w / h) / (size[0] / size[1]), (h / w) / (size[1] / size[0]))
    x0, y0, x1, y1 = centre_crop_box(w, h, zoom)
    return cv2.resize(frame[y0:y1, x0:x1], size, interpolation=cv2.INTER_AREA)


def _letterbox(frame: Frame, size: tuple[int, int]) -> Frame:
    h, w = frame.shape[:2]
    scale = min(size[0] / w, size[1] / h)
    fw, fh = max(1, round(w * scale)), max(1, round(h * scale))
    out = np.zeros((size[1], size[0], 3), np.uint8)
    x0, y0 = (size[0] - fw) // 2, (size[1] - fh) // 2
    out[y0 : y0 + fh, x0 : x0 + fw] = cv2.resize(frame, (fw, fh), interpolation=cv2.INTER_AREA)
    return out


def _fps(path: Path) -> float:
    capture = cv2.VideoCapture(str(path))
    fps = float(capture.get(cv2.CAP_PROP_FPS)) if capture.isOpened() else 0.0
    capture.release()
    return fps if fps > 0 else 30.0


def _write(
    out: Path, frames: Iterator[Frame], count: int, fps: float, size: tuple[int, int]
) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise ClipError(f"{out}: cannot be written (mp4v)")
    try:
        for _, frame in zip(range(count), frames, strict=False):
            writer.write(frame)
    finally:
        writer.release()


def write_cuts(
    a: Path,
    b: Path,
    out: Path,
    *,
    frames: int = 240,
    size: tuple[int, int] = (1280, 720),
    segment: int = SEGMENT_FRAMES,
) -> None:
    """`frames` frames alternating between `a` and `b` every `segment` frames (each clip
    carries on where it left off)."""
    clips = (_frames(a, size), _frames(b, size))

    def cut() -> Iterator[Frame]:
        for i in range(frames):
            yield next(clips[(i // segment) % 2])

    _write(out, cut(), frames, _fps(a), size)


def write_side_by_side(
    a: Path, b: Path, out: Path, *, frames: int = 240, size: tuple[int, int] = (1280, 720)
) -> None:
    """`frames` frames with `a` in the left half and `b` in the right one, each whole
    (shrunk to fit its half): two faces of a size a group shot has."""
    half = (size[0] // 2, size[1])
    left, right = _frames(a, half, crop=False), _frames(b, half, crop=False)

    def pairs() -> Iterator[Frame]:
        for _ in range(frames):
            yield np.hstack([next(left), next(right)])

    _write(out, pairs(), frames, _fps(a), (half[0] * 2, size[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.tools.bench_clips")
    parser.add_argument("kind", choices=("cuts", "side-by-side"))
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--size", default="1280x720", metavar="WxH")
    args = parser.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    if args.kind == "cuts":
        write_cuts(args.a, args.b, args.out, frames=args.frames, size=(w, h))
    else:
        write_side_by_side(args.a, args.b, args.out, frames=args.frames, size=(w, h))
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
