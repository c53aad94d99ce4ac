"""Turns the command line's input options into a frame source (no Qt here)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from engine.core.imageio import IMAGE_SUFFIXES
from engine.core.imagesize import FrameSizeError, check_frame_size
from engine.sources import CameraSource, DemoSource, ImageSource, VideoFileSource
from engine.sources.base import FrameSource, SourceError

log = logging.getLogger(__name__)


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, not {text!r}") from None
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"size {text!r} is out of range (16..8192)")
    try:
        check_frame_size(w, h, "size")
    except FrameSizeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return w, h


def parse_camera(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def add_input_options(parser: argparse.ArgumentParser, camera: bool = True) -> None:
    group = parser.add_mutually_exclusive_group()
    if camera:
        group.add_argument(
            "--camera", type=parse_camera, metavar="N|PATH", help="camera index or device path"
        )
    group.add_argument("--input", type=Path, metavar="FILE", help="video file or image as input")
    group.add_argument("--demo", action="store_true", help="bundled moving-portrait demo source")


def make_source(
    args: argparse.Namespace,
    *,
    size: tuple[int, int] | None = None,
    realtime: bool = True,
    lockstep: bool = False,
    loop: bool = True,
    fall_back_to_demo: bool = True,
) -> FrameSource:
    """Camera, file or demo as asked; with none asked, camera 0 or else the demo.
    `args.zoom` (bench) crops the centre of each frame before it is resized to `size`."""
    zoom: float = getattr(args, "zoom", 1.0)
    if getattr(args, "demo", False):
        return DemoSource(realtime=realtime, size=size, lockstep=lockstep, zoom=zoom)
    path: Path | None = getattr(args, "input", None)
    if path is not None:
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return ImageSource(path, realtime=realtime, size=size, lockstep=lockstep, zoom=zoom)
        return VideoFileSource(
            path, realtime=realtime, loop=loop, size=size, lockstep=lockstep, zoom=zoom
        )
    camera = getattr(args, "camera", None)
    if camera is not None:
        return CameraSource(camera, size=size, lockstep=lockstep, zoom=zoom)
    try:
        source = CameraSource(0, size=size, lockstep=lockstep, zoom=zoom)
        source.open()
        return source
    except SourceError as exc:
        if not fall_back_to_demo:
            raise
        log.warning("%s; using the bundled demo source instead", exc)
        return DemoSource(realtime=realtime, size=size, lockstep=lockstep, zoom=zoom)


def asked_source(args: argparse.Namespace) -> FrameSource | None:
    """The input the command line asked for, or None to use the saved choice."""
    asked = (
        getattr(args, "demo", False)
        or getattr(args, "input", None) is not None
        or getattr(args, "camera", None) is not None
    )
    return make_source(args) if asked else None
