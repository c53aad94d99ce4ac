"""`fusecam doctor`: checks the GPU set-up, virtual camera and stream port, with fixes."""

from __future__ import annotations

import argparse

from app.cli.options import Subparsers, int_in
from engine.core.settings import EXECUTION_PROVIDERS, EngineSettings
from engine.outputs.stream.config import DEFAULT_PORT


def add_parser(sub: Subparsers) -> None:
    doctor = sub.add_parser(
        "doctor", help="check GPU libraries, virtual camera and stream port; print the fixes"
    )
    doctor.add_argument(
        "--provider",
        choices=EXECUTION_PROVIDERS,
        default="auto",
        help="the execution provider to try (default: auto)",
    )
    doctor.add_argument(
        "--port",
        type=int_in(1, 65535),
        default=DEFAULT_PORT,
        metavar="N",
        help=f"stream port to check (default {DEFAULT_PORT})",
    )


def run(args: argparse.Namespace, settings: EngineSettings) -> int:
    from engine.tools.doctor import format_report, run_checks

    checks = run_checks(args.provider, args.port)
    print(format_report(checks))
    problems = [c.title for c in checks if c.status == "problem"]
    warnings = [c.title for c in checks if c.status == "warning"]
    if problems:
        print(f"\nbroken: {', '.join(problems)}")
        return 1
    summary = f"works; missing pieces: {', '.join(warnings)}" if warnings else "all good"
    print(f"\n{summary}")
    return 0
