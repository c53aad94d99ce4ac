"""What the terminal shows at the end of `bench` and `run`: the table unless JSON is asked
for, and a run's summary of frames read, processed and skipped."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from tests.app.cli.test_cli import invoke

BENCH = ["bench", "--demo", "--size", "160x90", "--frames", "8"]


def test_bench_prints_the_table_only_without_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = invoke(BENCH, capsys)
    assert code == 0, err
    assert "p50 ms" in stdout
    assert not any(line.startswith(("{", "}")) for line in stdout.splitlines())


def test_bench_json_alone_prints_only_the_json(
    capsys: pytest.CaptureFixture[str], check_bench_report: Callable[..., None]
) -> None:
    code, stdout, err = invoke([*BENCH, "--json"], capsys)
    assert code == 0, err
    report = json.loads(stdout)  # nothing else on stdout: it pipes into a tool
    check_bench_report(report, frames=8, size=(160, 90))


def test_run_frames_ends_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = invoke(
        ["run", "--demo", "--size", "160x90", "--no-preview", "--frames", "40"], capsys
    )
    assert code == 0, err
    last = err.strip().splitlines()[-1]
    found = re.match(
        r"fusecam: done: (\d+) input frames in [\d.]+ s, (\d+) processed, (\d+) skipped "
        r"while the engine was busy \(newest frame wins\) · [\d.]+ fps · latency p50",
        last,
    )
    assert found is not None, last
    read, processed, skipped = map(int, found.groups())
    assert read == 40 and processed + skipped <= read and processed > 0
