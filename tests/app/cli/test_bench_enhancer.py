"""`fusecam bench --enhancer MODE|all`: each enhancer mode measured in one process, with
the real face pipeline on the demo source, and compared with "off"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper, save_model

from app.cli.main import main

FRAMES = 12
SIZE = (320, 180)


def bench(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], str]:
    out = tmp_path / "bench.json"
    w, h = SIZE
    code = main(
        [
            "bench",
            "--demo",
            "--size",
            f"{w}x{h}",
            "--frames",
            str(FRAMES),
            "--json",
            str(out),
            *argv,
        ]
    )
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    return json.loads(out.read_text()), stdout


def fake_restorer(path: Path, size: int = 512) -> Path:
    """A stand-in GFPGAN-style model (no real restorer may be downloaded in tests): the
    right signature, N×3×S×S in [-1, 1] → 0.9 × input, so the stage really runs it."""
    graph = helper.make_graph(
        [helper.make_node("Mul", ["input", "gain"], ["output"])],
        "fake_restorer",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 3, size, size])],
        [numpy_helper.from_array(np.array(0.9, np.float32), "gain")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    save_model(model, str(path))
    return path


def test_all_modes_are_measured_and_compared_with_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], check_bench_report: Callable[..., None]
) -> None:
    report, table = bench(["--enhancer", "all"], tmp_path, capsys)
    runs = report["runs"]
    assert [(r["enhancer"], r["mode"]) for r in runs] == [
        ("off", "max"),
        ("off", "paced"),
        ("builtin", "max"),
        ("builtin", "paced"),
        ("neural", "max"),
        ("neural", "paced"),
    ]
    for i in range(0, len(runs), 2):  # every existing key, for each mode
        check_bench_report({"runs": runs[i : i + 2]}, frames=FRAMES, size=SIZE)
    # No neural model is chosen here: the run says so and what it measured instead.
    neural = runs[4]
    assert neural["enhancer_used"] == "builtin"
    assert "no neural enhancer model" in neural["enhancer_fallback"]
    # The built-in enhancer really ran on the demo face; with "off" it did nothing.
    builtin, off = runs[2], runs[0]
    assert (
        builtin["stages"]["enhancer"]["ran"] == FRAMES
        and builtin["stages"]["enhancer"]["p50_ms"] > 0
    )
    assert off["stages"]["enhancer"] == {"ran": 0, "skipped": {"off": FRAMES}}

    rows = {r["enhancer"]: r for r in report["enhancer_comparison"]}
    assert list(rows) == ["off", "builtin", "neural"]
    assert (
        rows["off"]["fps_vs_off"] == rows["off"]["p50_vs_off"] == rows["off"]["p95_vs_off"] == 1.0
    )
    for name in ("builtin", "neural"):
        row, run = rows[name], runs[2 if name == "builtin" else 4]
        assert row["fps"] == run["fps"]
        assert row["fps_vs_off"] == pytest.approx(run["fps"] / off["fps"], abs=1e-3)
        assert row["p95_vs_off"] == pytest.approx(
            run["processing"]["p95_ms"] / off["processing"]["p95_ms"], abs=1e-3
        )
    tail = table[table.index("enhancer cost") :]
    assert "×off" in tail and "builtin" in tail and "neural→builtin" in tail
    assert table.count("enhancer builtin") == 2
    assert "neural enhancer unavailable, built-in measured" in table


def test_one_mode_with_a_neural_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = fake_restorer(tmp_path / "restorer.onnx")
    report, table = bench(
        ["--enhancer", "neural", "--enhancer-model", str(model)], tmp_path, capsys
    )
    assert [(r["enhancer"], r["enhancer_used"]) for r in report["runs"]] == [
        ("neural", "neural")
    ] * 2
    assert all(r["enhancer_fallback"] is None for r in report["runs"])
    # A 512×512 restoration per frame: visibly more than the built-in's few blurs.
    assert report["runs"][0]["stages"]["enhancer"]["p50_ms"] > 0.5
    assert "enhancer_comparison" not in report and "enhancer cost" not in table


def test_without_the_flag_the_settings_mode_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, _ = bench([], tmp_path, capsys)
    assert [r["enhancer"] for r in report["runs"]] == ["off", "off"]
    assert "enhancer_used" not in report["runs"][0]


def test_bad_mode_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--demo", "--enhancer", "fast"])
    assert exc.value.code == 2
    assert "invalid choice: 'fast'" in capsys.readouterr().err


# --- `fusecam run` quality flags (governor target, hand occlusion) ----------------------------


def test_run_quality_flags_reach_the_settings() -> None:
    from app.cli.main import build_parser
    from app.cli.options import with_quality_options
    from engine.core.settings import EngineSettings

    args = build_parser().parse_args(
        ["run", "--target-fps", "30", "--target-p95-ms", "45", "--hands"]
    )
    settings = with_quality_options(args, EngineSettings())
    assert settings.quality.target_fps == 30.0 and settings.quality.target_p95_ms == 45.0
    assert settings.hands.enabled and settings.quality.has_target
    plain = with_quality_options(build_parser().parse_args(["run"]), EngineSettings())
    assert plain == EngineSettings()
    assert not plain.swap.keep_source_beard  # the source's beard is left out by default
    bearded = with_quality_options(
        build_parser().parse_args(["run", "--source-beard"]), EngineSettings()
    )
    assert bearded.swap.keep_source_beard


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--target-fps", "0", "'0' is not a frame rate in 1..240"),
        ("--target-fps", "fast", "'fast' is not a frame rate in 1..240"),
        ("--target-p95-ms", "5000", "'5000' is not a latency in 1..1000 ms"),
    ],
)
def test_run_rejects_bad_targets(
    flag: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["run", "--demo", flag, value])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_run_reports_the_quality_step(capsys: pytest.CaptureFixture[str]) -> None:
    # A 2 ms latency target no machine meets here: the governor must be active and say so.
    code = main(
        [
            "run",
            "--demo",
            "--size",
            "320x180",
            "--no-preview",
            "--frames",
            "60",
            "--target-p95-ms",
            "2",
            "--hands",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    last = err.strip().splitlines()[-1]
    # The summary line names the governor's step; whether it has measured yet (its
    # "latency p95 … vs 2 ms") or is still "measuring" depends on the machine's load.
    assert "quality step " in last and "p95" in last, last
