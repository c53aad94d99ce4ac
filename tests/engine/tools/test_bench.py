"""`run_bench`: a max (lock-step) and a paced run, reported in one JSON schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from engine.sources import DemoSource
from engine.sources.base import FrameSource
from engine.tools.bench import BenchConfig, format_table, run_bench
from tests.engine.stages.passthrough import PassThrough


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    def make_source(lockstep: bool) -> FrameSource:
        return DemoSource(size=(320, 180), realtime=not lockstep, lockstep=lockstep)

    return run_bench(make_source, lambda: [PassThrough()], BenchConfig(frames=20, warmup=5))


def test_bench_report_schema(
    report: dict[str, Any], check_bench_report: Callable[..., None]
) -> None:
    check_bench_report(report, frames=20, size=(320, 180))
    for run in report["runs"]:
        # The stages, and the watermark the output guard adds, as its own row.
        assert list(run["stages"]) == ["passthrough", "watermark"]
        assert run["stages"]["watermark"]["ran"] == 20
        assert run["stages"]["watermark"]["p50_ms"] > 0
        assert run["providers"] == []  # no stage here runs a model
    json.dumps(report)  # plain JSON types only


def test_paced_run_follows_the_source_rate(report: dict[str, Any]) -> None:
    max_run, paced = report["runs"]
    # Paced like a 30 fps camera: never faster (a slower run only means a busy machine,
    # so there is no lower bound), and the unpaced run is not held to that rate.
    assert paced["fps"] <= 40.0, paced["fps"]
    assert max_run["fps"] > paced["fps"]


def test_format_table_lists_both_runs_and_every_stage(report: dict[str, Any]) -> None:
    table = format_table(report)
    assert "mode max" in table and "mode paced" in table
    lines = table.splitlines()
    assert sum(line.startswith("  passthrough ") for line in lines) == 2  # the stage rows
    assert table.count("worst frames") == 2
    assert sum(line.startswith("  cpu ") and "(process" in line for line in lines) == 2
    assert table.count("% of one core at 30 fps") == 1  # the paced run only
    assert table.count("end_to_end") == 2
    assert "320x180" in table
