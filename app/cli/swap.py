"""`fusecam swap`: one image or video through the live stages, offline (every frame, in
order; a neural model that cannot load is an error, never a silent built-in fallback)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app import activity
from app.cli.options import (
    Subparsers,
    add_pipeline_options,
    add_source_option,
    existing_file,
    with_quality_options,
)
from app.cli.status import video_progress
from engine.core.atomic import check_output_path
from engine.core.imageio import IMAGE_SUFFIXES, ImageWriteError, read_image
from engine.core.settings import EngineSettings
from engine.models.onnx import ModelLoadError
from engine.outputs.video_file import video_format
from engine.sources.video import VideoFileSource


def add_parser(sub: Subparsers) -> None:
    swap = sub.add_parser("swap", help="swap one image or video offline")
    add_source_option(swap, "source face image (repeatable)", required=True)
    swap.add_argument("--target", type=existing_file, required=True, metavar="IMAGE_OR_VIDEO")
    swap.add_argument("--output", type=Path, required=True, metavar="OUT")
    swap.add_argument(
        "--label",
        action=argparse.BooleanOptionalAction,
        default=True,
        help='draw the "SYNTHETIC" label on the output (default: on; the invisible '
        "watermark is always there)",
    )
    add_pipeline_options(swap)


def run(args: argparse.Namespace, settings: EngineSettings) -> int:
    from engine.runtime.factory import build_stages, with_sources
    from engine.runtime.pipeline import Engine
    from engine.runtime.session import LiveSession
    from engine.swap.library import SourceLibrary
    from engine.tools.offline import is_image, swap_image, swap_video

    # A bad target or output fails at once, before any model loads (and logs its
    # provider) and before anything is written.
    check_output_path(
        args.output,
        [("target", args.target), *(("source photo", face) for face in args.source)],
    )
    if is_image(args.target):
        read_image(args.target)
        _check_image_output(args.output)
    else:
        VideoFileSource(args.target).open()  # released when the probe is dropped
        video_format(args.output)
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
            report = swap_image(session.engine, args.target, args.output, label=args.label)
            done = f"wrote {args.output}"
        else:
            with video_progress() as progress:
                report = swap_video(
                    session.engine, args.target, args.output, progress, label=args.label
                )
            written = report.written if report.written is not None else report.frames
            done = f"wrote {written} frames to {args.output} ({report.video_codec})"
    except KeyboardInterrupt:
        print(f"fusecam: interrupted; {args.output} was not written", file=sys.stderr)
        raise
    finally:
        session.stop()
    activity.record(
        "swap",
        activity.source_faces(settings, library),
        {"file": True},
        [args.output],
        label=args.label,
    )
    for line in report.warnings():
        print(f"fusecam: warning: {line}", file=sys.stderr)
    print(f"fusecam: {done}", file=sys.stderr)
    if report.audio:
        print(f"fusecam: kept the target's audio ({report.audio})", file=sys.stderr)
    for note in report.notes:
        print(f"fusecam: {note}", file=sys.stderr)
    return 0


def _check_image_output(path: Path) -> None:
    if path.suffix and path.suffix.lower() not in IMAGE_SUFFIXES:
        raise ImageWriteError(
            f"{path}: an image target needs an image output "
            f"({', '.join(sorted(IMAGE_SUFFIXES))}), not {path.suffix.lower()!r}"
        )
