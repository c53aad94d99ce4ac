"""The `fusecam` command: GUI by default, plus `run`, `swap` and `bench`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import cv2

from app.cli.inputs import add_input_options, asked_source, make_source, parse_size
from app.cli.models import add_models_parser, run_models
from app.cli.run import (
    add_output_options,
    add_pipeline_options,
    add_quality_options,
    with_quality_options,
)
from engine.core.imageio import ImageReadError, ImageWriteError, read_image
from engine.core.settings import EngineSettings
from engine.models.onnx import ModelLoadError
from engine.outputs.recorder import RecorderError
from engine.sources.base import SourceError
from engine.sources.video import VideoFileSource
from engine.swap.library import SourceFaceError

# Errors with a message meant for the user: one line, non-zero exit, no traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    SourceFaceError,
    ModelLoadError,
    SourceError,
    ImageReadError,
    ImageWriteError,
    RecorderError,
    FileNotFoundError,
    PermissionError,
)


def _existing_file(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    return path


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0")
    return value


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line; the full usage is one `--help` away.

    Subcommand parsers inherit this class (argparse uses the parent's type).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    # Typed as the base class: subcommand helpers take ArgumentParser's subparsers.
    parser: argparse.ArgumentParser = _Parser(
        prog="fusecam",
        description="Real-time face swap with live preview, virtual camera and stream. "
        "With no command, opens the desktop app.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    add_input_options(parser)
    parser.add_argument(
        "--source",
        type=_existing_file,
        action="append",
        metavar="FACE",
        help="source face image (repeat for several photos of one person)",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="OUT.png",
        help="render the window, save a screenshot and quit",
    )
    parser.add_argument(
        "--quit-after-ms", type=_positive, metavar="N", help="close the window after N ms"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="headless live processing")
    run.add_argument(
        "--source",
        type=_existing_file,
        action="append",
        metavar="FACE",
        help="source face image (default: a bundled sample face)",
    )
    add_input_options(run)
    run.add_argument("--record", type=Path, metavar="OUT.mp4", help="record the output")
    run.add_argument("--frames", type=_positive, metavar="N", help="stop after N frames")
    run.add_argument("--size", type=parse_size, metavar="WxH", help="resize input frames")
    run.add_argument("--no-preview", action="store_true", help="no preview window")
    run.add_argument(
        "--debug-overlay",
        action="store_true",
        help="draw face boxes, the face mesh and pose axes on the output",
    )
    add_output_options(run)
    add_quality_options(run)

    swap = sub.add_parser("swap", help="swap one image or video offline")
    swap.add_argument(
        "--source",
        type=_existing_file,
        action="append",
        required=True,
        metavar="FACE",
        help="source face image (repeatable)",
    )
    swap.add_argument("--target", type=_existing_file, required=True, metavar="IMAGE_OR_VIDEO")
    swap.add_argument("--output", type=Path, required=True, metavar="OUT")
    add_pipeline_options(swap)

    bench = sub.add_parser("bench", help="measure speed and memory (JSON + table)")
    bench.add_argument("--source", type=_existing_file, action="append", metavar="FACE")
    add_input_options(bench, camera=False)
    bench.add_argument(
        "--size",
        type=parse_size,
        default=(1280, 720),
        metavar="WxH",
        help="frame size (default 1280x720)",
    )
    bench.add_argument("--frames", type=_positive, default=200, metavar="N")
    bench.add_argument("--json", type=Path, metavar="OUT.json", help="also write the JSON here")
    bench.add_argument(
        "--enhancer",
        choices=("off", "builtin", "neural", "all"),
        help="measure this enhancer mode (all: each, compared with off)",
    )
    bench.add_argument(
        "--enhancer-model",
        metavar="NAME_OR_PATH",
        help="neural enhancer: a registered model name or a GFPGAN-style .onnx",
    )
    add_models_parser(sub)
    return parser


def _cmd_swap(args: argparse.Namespace, settings: EngineSettings) -> int:
    from engine.runtime.factory import build_stages, prepare_stages, with_sources
    from engine.runtime.offline import is_image, swap_image, swap_video
    from engine.runtime.pipeline import Engine
    from engine.swap.library import SourceLibrary

    # A bad target fails at once, before any model loads (and logs its provider).
    if is_image(args.target):
        read_image(args.target)
    else:
        VideoFileSource(args.target).open()  # released when the probe is dropped
    library = SourceLibrary()
    settings = with_sources(with_quality_options(args, settings), library, args.source)
    stages = build_stages(settings, library=library)
    # Offline output must be what was asked for: no silent built-in fallback.
    for name, reason in prepare_stages(stages, settings).items():
        raise ModelLoadError(f"{name}: {reason}")
    engine = Engine(stages, settings)
    if is_image(args.target):
        swap_image(engine, args.target, args.output)
        print(f"fusecam: wrote {args.output}", file=sys.stderr)
    else:
        count = swap_video(engine, args.target, args.output)
        print(f"fusecam: wrote {count} frames to {args.output}", file=sys.stderr)
    return 0


def _cmd_bench(args: argparse.Namespace, settings: EngineSettings) -> int:
    from engine.runtime.bench import ENHANCER_MODES, BenchConfig, format_table, run_bench
    from engine.runtime.factory import build_stages, with_sources
    from engine.swap.library import SourceLibrary

    make_source(args, size=args.size).open()  # fail fast on a bad input, before timing
    library = SourceLibrary()
    settings = with_sources(settings, library, args.source or ())
    if args.enhancer_model:
        models = dataclasses.replace(settings.models, enhancer_model=args.enhancer_model)
        settings = dataclasses.replace(settings, models=models)
    enhancers = {None: (), "all": ENHANCER_MODES}.get(args.enhancer, (args.enhancer,))
    report = run_bench(
        lambda lockstep: make_source(
            args, size=args.size, realtime=not lockstep, lockstep=lockstep
        ),
        lambda: build_stages(settings, library=library),
        BenchConfig(frames=args.frames, settings=settings, enhancers=enhancers),
    )
    text = json.dumps(report, indent=2)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    print(format_table(report))
    print(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="fusecam: %(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:
        # Native OpenCV/FFmpeg messages ("moov atom not found", V4L2 probing a bad camera
        # path) would print beside our one-line error; they stay visible with --verbose.
        # FFmpeg's level is read once, when OpenCV first opens a video: set it before that.
        os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "8")  # AV_LOG_FATAL
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    # Our threads (capture, engine, sinks) already keep the cores busy; OpenCV's own pool
    # on top of them only adds contention (1280x720 bench: processing p95 20 ms with one
    # OpenCV thread per caller, 24 ms with its default pool, on 2 cores).
    cv2.setNumThreads(1)
    settings = EngineSettings()
    try:
        if args.command == "run":
            from app.cli.run import run

            if args.debug_overlay:
                output = dataclasses.replace(settings.output, debug_overlay=True)
                settings = dataclasses.replace(settings, output=output)
            return run(args, settings)
        if args.command == "swap":
            return _cmd_swap(args, settings)
        if args.command == "bench":
            return _cmd_bench(args, settings)
        if args.command == "models":
            return run_models(args)
        from app.gui.display import HEADLESS_HINT, has_display

        if not has_display() and args.screenshot is None:
            print(HEADLESS_HINT, file=sys.stderr)
            return 2
        from app.gui.launch import launch

        return launch(args, asked_source(args))
    except USER_ERRORS as exc:
        print(f"fusecam: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
