"""`fusecam bench`: speed and memory of the live pipeline on a file or the demo, as a
table and JSON (engine.tools.bench runs and reports it)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from app.cli.inputs import add_input_options, make_source, parse_size
from app.cli.options import Subparsers, add_source_option, positive
from engine.core.settings import EngineSettings

STDOUT = Path("-")  # `--json` without a file name


def add_parser(sub: Subparsers) -> None:
    bench = sub.add_parser("bench", help="measure speed and memory (JSON + table)")
    add_source_option(bench)
    add_input_options(bench, camera=False)
    bench.add_argument(
        "--size",
        type=parse_size,
        default=(1280, 720),
        metavar="WxH",
        help="frame size (default 1280x720)",
    )
    bench.add_argument(
        "--zoom",
        type=zoom_factor,
        default=1.0,
        metavar="F",
        help="crop the centre 1/F of each input frame before resizing to --size (a bigger "
        "face from the same input; default 1)",
    )
    bench.add_argument("--frames", type=positive, default=200, metavar="N")
    bench.add_argument(
        "--profile",
        action="store_true",
        help="time the sub-steps inside every stage and print a table of them",
    )
    bench.add_argument(
        "--json",
        type=Path,
        nargs="?",
        const=STDOUT,
        metavar="OUT.json",
        help="the full report as JSON: into OUT.json, or printed instead of the table "
        "with --json alone (without --json: the table only)",
    )
    bench.add_argument(
        "--enhancer",
        choices=("off", "builtin", "neural", "all"),
        help="measure this enhancer mode (all: each, compared with off)",
    )
    bench.add_argument(
        "--faces",
        choices=("main", "all", "map"),
        default="main",
        help="swap the main face (default), all faces, or map: each --source photo onto "
        "the faces from left to right",
    )
    bench.add_argument(
        "--enhancer-model",
        metavar="NAME_OR_PATH",
        help="neural enhancer: a registered model name or a GFPGAN-style .onnx",
    )


def zoom_factor(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"zoom must be a number, not {text!r}") from None
    if not 1.0 <= value <= 16.0:
        raise argparse.ArgumentTypeError(f"zoom {text!r} is out of range (1..16)")
    return value


def run(args: argparse.Namespace, settings: EngineSettings) -> int:
    from app.cli.run_settings import with_run_sources
    from engine.runtime.factory import build_stages
    from engine.swap.library import SourceLibrary
    from engine.tools.bench import ENHANCER_MODES, BenchConfig, format_table, run_bench

    make_source(args, size=args.size).open()  # fail fast on a bad input, before timing
    library = SourceLibrary()
    swap = dataclasses.replace(settings.swap, face_selection=args.faces)
    settings = dataclasses.replace(settings, swap=swap)
    # As `fusecam run` does: in map mode each --source photo is one face, left to right.
    settings, _ = with_run_sources(settings, library, args.source or (), ())
    if args.enhancer_model:
        models = dataclasses.replace(settings.models, enhancer_model=args.enhancer_model)
        settings = dataclasses.replace(settings, models=models)
    enhancers = {None: (), "all": ENHANCER_MODES}.get(args.enhancer, (args.enhancer,))
    report = run_bench(
        lambda lockstep: make_source(
            args, size=args.size, realtime=not lockstep, lockstep=lockstep
        ),
        lambda: build_stages(settings, library=library),
        BenchConfig(
            frames=args.frames, settings=settings, enhancers=enhancers, profile=args.profile
        ),
    )
    text = json.dumps(report, indent=2)
    if args.json == STDOUT:  # for a pipe: the JSON alone
        print(text)
        return 0
    print(format_table(report))
    if args.json is not None:  # the JSON is for tools: in the file, not on the terminal too
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    return 0
