"""`fusecam swap`: one image or video through the live stages, offline (every frame, in
order; a neural model that cannot load is an error, never a silent built-in fallback)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.options import (
    Subparsers,
    add_pipeline_options,
    add_source_option,
    existing_file,
    with_quality_options,
)
from app.cli.status import video_progress
from engine.core.imageio import read_image
from engine.core.settings import EngineSettings
from engine.models.onnx import ModelLoadError
from engine.sources.video import VideoFileSource


def add_parser(sub: Subparsers) -> None:
    swap = sub.add_parser("swap", help="swap one image or video offline")
    add_source_option(swap, "source face image (repeatable)", required=True)
    swap.add_argument("--target", type=existing_file, required=True, metavar="IMAGE_OR_VIDEO")
    swap.add_argument("--output", type=Path, required=True, metavar="OUT")
    add_pipeline_options(swap)


def run(args: argparse.Namespace, settings: EngineSettings) -> int:
    from engine.runtime.factory import build_stages, with_sources
    from engine.runtime.offline import is_image, swap_image, swap_video
    from engine.runtime.pipeline import Engine
    from engine.runtime.session import LiveSession
    from engine.swap.library import SourceLibrary

    # A bad target fails at once, before any model loads (and logs its provider).
    if is_image(args.target):
        read_image(args.target)
    else:
        VideoFileSource(args.target).open()  # released when the probe is dropped
    library = SourceLibrary()
    settings = with_sources(with_quality_options(args, settings), library, args.source)
    # No source: the session only prepares and closes the stages; frames go through
    # engine.process on this thread, in order.
    session = LiveSession(Engine(build_stages(settings, library=library), settings))
    try:
        # Offline output must be what was asked for: no silent built-in fallback.
        for name, reason in session.prepare_stages().items():
            raise ModelLoadError(f"{name}: {reason}")
        if is_image(args.target):
            swap_image(session.engine, args.target, args.output)
            print(f"fusecam: wrote {args.output}", file=sys.stderr)
        else:
            with video_progress() as progress:
                count = swap_video(session.engine, args.target, args.output, progress)
            print(f"fusecam: wrote {count} frames to {args.output}", file=sys.stderr)
            _keep_audio(args.target, args.output)
    finally:
        session.stop()
    return 0


def _keep_audio(target: Path, output: Path) -> None:
    from engine.runtime.offline import AudioMuxError, keep_audio

    try:
        how = keep_audio(target, output)
    except AudioMuxError as exc:  # the video is written; say what is missing from it
        print(f"fusecam: warning: {exc}", file=sys.stderr)
        return
    if how:
        print(f"fusecam: kept the target's audio ({how})", file=sys.stderr)
