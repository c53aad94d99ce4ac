"""`fusecam check FILE|URL`: is Fusecam's invisible watermark in it?

Exit 0: marked; 1: not marked; 2: unreadable (not an image, video or stream); 3: too
small to decide (under one 128 px tile on a side, and no mark found)."""

from __future__ import annotations

import argparse

from app.cli.options import Subparsers, positive
from engine.core.settings import EngineSettings

MARKED, NOT_MARKED, UNREADABLE, TOO_SMALL = 0, 1, 2, 3


def add_parser(sub: Subparsers) -> None:
    check = sub.add_parser(
        "check",
        help="say whether an image, video or live stream carries Fusecam's watermark",
        description="Exit status: 0 marked, 1 not marked, 2 unreadable, 3 too small to "
        "decide (under 128 px on a side and no mark found).",
    )
    check.add_argument("target", metavar="FILE|URL", help="image, video, or stream URL")
    check.add_argument(
        "--frames",
        type=positive,
        default=30,
        metavar="N",
        help="video or stream: check this many frames (default 30)",
    )


def run(args: argparse.Namespace, _settings: EngineSettings) -> int:
    from engine.watermark.check import Unreadable, check

    try:
        result = check(args.target, args.frames)
    except Unreadable as exc:
        print(f"fusecam: cannot check: {exc}")
        return UNREADABLE
    print(result.describe())
    if result.marked:
        return MARKED
    return TOO_SMALL if result.too_small else NOT_MARKED
