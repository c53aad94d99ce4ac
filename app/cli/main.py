"""The `fusecam` command: GUI by default, plus `run`, `swap` and `bench`."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import cv2

from app import __version__, logs
from app.cli import bench, check, doctor, models, run, swap
from app.cli.inputs import add_input_options, asked_source
from app.cli.options import add_source_option, positive
from app.cli.signals import exit_status, terminate_like_interrupt
from engine.core.atomic import OutputPathError
from engine.core.imageio import ImageReadError, ImageWriteError
from engine.core.settings import EngineSettings
from engine.models.onnx import ModelLoadError
from engine.outputs.recorder import RecorderError
from engine.outputs.video_file import VideoWriteError
from engine.sources.base import SourceError
from engine.swap.library import SourceFaceError
from engine.tools.offline import SwapFailed

# Errors with a message meant for the user: one line, non-zero exit, no traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    SourceFaceError,
    ModelLoadError,
    SourceError,
    ImageReadError,
    ImageWriteError,
    RecorderError,
    VideoWriteError,
    OutputPathError,
    SwapFailed,
    FileNotFoundError,
    PermissionError,
)


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
    parser.add_argument("--version", action="version", version=f"fusecam {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    add_input_options(parser)
    add_source_option(parser, "source face image (repeat for several photos of one person)")
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="OUT.png",
        help="render the window, save a screenshot and quit",
    )
    parser.add_argument(
        "--quit-after-ms", type=positive, metavar="N", help="close the window after N ms"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    for command in (run, swap, bench, check, models, doctor):
        command.add_parser(sub)
    return parser


def gui_blocked(args: argparse.Namespace) -> tuple[str, int] | None:
    """Why the window cannot open here, said before Qt tries (and aborts), with the exit
    status: no display (NO_DISPLAY_EXIT: `make run` ends there without an error), or X11
    libraries Qt needs are missing (2)."""
    from app.gui.display import NO_DISPLAY_EXIT, has_display, headless_hint
    from engine.tools import desktop_libs

    if not has_display() and args.screenshot is None:
        return headless_hint(), NO_DISPLAY_EXIT
    missing = desktop_libs.missing_libraries() if desktop_libs.uses_xcb() else []
    if missing:  # Qt would abort with "could not load the Qt platform plugin xcb"
        return f"fusecam: error: {desktop_libs.missing_text(missing)}", 2
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    diagnostics = logs.setup(logging.INFO if args.verbose else logging.WARNING)
    diagnostics.keep_secret(getattr(args, "token", None))
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
        commands = {
            "run": run.run,
            "swap": swap.run,
            "bench": bench.run,
            "check": check.run,
            "doctor": doctor.run,
        }
        if args.command in commands:
            with terminate_like_interrupt():
                return commands[args.command](args, settings)
        if args.command == "models":
            with terminate_like_interrupt():
                return models.run_models(args)
        blocked = gui_blocked(args)
        if blocked is not None:
            print(blocked[0], file=sys.stderr)
            return blocked[1]
        from app.gui.launch import launch

        return launch(args, asked_source(args), diagnostics)
    except USER_ERRORS as exc:
        print(f"fusecam: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        return exit_status(exc)


def entry() -> NoReturn:
    """The `fusecam` command and `python -m app.cli`: `main()`, then exit at once.

    By the time `main` returns every output is committed and closed and every thread
    stopped; what is left is the interpreter's teardown, where numba's LLVM and
    onnxruntime spend 0.3-0.8 s freeing memory the OS takes back anyway. A Ctrl+C or
    SIGTERM must not wait for that (stop within 1 s), so it is skipped.
    """
    code = main()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
