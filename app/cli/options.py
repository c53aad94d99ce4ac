"""Flags and argument types the subcommands share: numbers in range, existing files,
which swapper/enhancer runs, the quality governor's target."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from engine.core.settings import EngineSettings

# What `add_subparsers` returns; each subcommand module adds its parser to it.
# (A string: argparse's class is not subscriptable at run time on Python 3.11.)
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def existing_file(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    return path


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0")
    return value


def add_source_option(
    parser: argparse.ArgumentParser, help_text: str | None = None, *, required: bool = False
) -> None:
    """`--source FACE`, repeatable: photos of the one person whose face goes on."""
    parser.add_argument(
        "--source",
        type=existing_file,
        action="append",
        required=required,
        metavar="FACE",
        help=help_text,
    )


def float_in(low: float, high: float, what: str) -> Callable[[str], float]:
    """An argparse type: a number in low..high; `what` names it in the error."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = low - 1.0  # not a number: the same error as one out of range
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    return parse


fps = float_in(1.0, 240.0, "a frame rate in 1..240")
target_ms = float_in(1.0, 1000.0, "a latency in 1..1000 ms")


def int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isdigit() or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number in {low}..{high}")
        return int(text)

    return parse


def add_quality_options(run: argparse.ArgumentParser) -> None:
    """`fusecam run` quality flags: the governor's target and hand occlusion."""
    group = run.add_argument_group("quality")
    group.add_argument(
        "--target-fps",
        type=fps,
        metavar="N",
        help="keep processing p95 within 1000/N ms, stepping quality down (enhancer, "
        "face search rate, render scale) when it is missed and back up with headroom",
    )
    group.add_argument(
        "--target-p95-ms",
        type=target_ms,
        metavar="N",
        help="keep the end-to-end latency p95 within N ms, the same way",
    )
    add_pipeline_options(run, group)


def add_pipeline_options(
    parser: argparse.ArgumentParser, group: argparse._ArgumentGroup | None = None
) -> None:
    """Flags shared by `run` and `swap`: which swapper/enhancer runs, hand occlusion."""
    target = group if group is not None else parser.add_argument_group("pipeline")
    target.add_argument(
        "--hands",
        action="store_true",
        help="keep hands in front of the face visible (palm + hand landmark models)",
    )
    target.add_argument(
        "--enhancer",
        choices=("off", "builtin", "neural"),
        help="face enhancer (default off; neural needs a model, see `fusecam models`)",
    )
    target.add_argument(
        "--swapper",
        choices=("builtin", "inswapper"),
        help="face swapper (default builtin; inswapper needs `fusecam models download "
        "inswapper_128`, and falls back to builtin until it is there)",
    )
    target.add_argument(
        "--likeness",
        type=float_in(0.0, 100.0, "a percentage from 0 to 100"),
        metavar="PCT",
        help="built-in swapper: how much of the source photo's own skin shading and tone "
        "the face keeps, 0..100 %% (the app's Likeness; default 65: more looks more like "
        "the photo, less sits more naturally in your light; above 65 the photo's fine "
        "skin texture comes back too, where by default your own shows)",
    )
    target.add_argument(
        "--eyes",
        choices=("yours", "photo", "photo-following"),
        help="built-in swapper: what shows between the lids — yours (default: your own "
        "eyeballs, so they blink and look where you look, in the source's iris colour), "
        "photo (the source photo's eyes as photographed) or photo-following "
        "(experimental: the photo's eyes turned to look where you look); see docs/swap.md",
    )
    target.add_argument(
        "--source-beard",
        action="store_true",
        help="built-in swapper: draw the source photo's own beard, moustache or stubble "
        "(default: your own chin shows there; drawn in your light it looks like a grey "
        "smear on a clean-shaven face)",
    )


def with_quality_options(args: argparse.Namespace, settings: EngineSettings) -> EngineSettings:
    quality = dataclasses.replace(
        settings.quality,
        target_fps=getattr(args, "target_fps", None) or settings.quality.target_fps,
        target_p95_ms=getattr(args, "target_p95_ms", None) or settings.quality.target_p95_ms,
    )
    hands = settings.hands
    if getattr(args, "hands", False):
        hands = dataclasses.replace(hands, enabled=True)
    enhancer, swap = settings.enhancer, settings.swap
    if getattr(args, "enhancer", None):
        enhancer = dataclasses.replace(enhancer, mode=args.enhancer)
    if getattr(args, "swapper", None):
        swap = dataclasses.replace(swap, swapper=args.swapper)
    if getattr(args, "likeness", None) is not None:
        swap = dataclasses.replace(swap, likeness=args.likeness / 100.0)
    if getattr(args, "eyes", None):
        swap = dataclasses.replace(swap, eyes=args.eyes.replace("-", "_"))
    if getattr(args, "source_beard", False):
        swap = dataclasses.replace(swap, keep_source_beard=True)
    return dataclasses.replace(settings, quality=quality, hands=hands, enhancer=enhancer, swap=swap)
