"""The `fusecam` command: help, one-line errors, and the run/swap/bench end-to-end paths.

The default pipeline may do real face work, so outputs are checked for being written,
readable and the right size/length, never for equalling the input.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import pytest

from app.cli.main import build_parser, main
from engine.core.paths import SAMPLE_FACES_DIR

CountFrames = Callable[[Path], tuple[int, tuple[int, int] | None]]


def subcommands() -> list[str]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return sorted(action.choices)
    return []


def invoke(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `main` in-process; (exit code, stdout, stderr) as Python printed them.

    Native libraries (OpenCV, FFmpeg) write straight to fd 2 and configure their logging
    once per process, so what a user's terminal shows is checked in subprocesses below.
    """
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def fusecam_command() -> list[str]:
    """The installed console script when present, else the module."""
    script = Path(sys.executable).parent / "fusecam"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "app.cli"]


def run_fusecam(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*fusecam_command(), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# --- help -------------------------------------------------------------------------------------


def test_the_basic_commands_exist() -> None:
    assert {"run", "swap", "bench", "doctor"} <= set(subcommands())


@pytest.mark.parametrize("command", [[], *([c] for c in subcommands())], ids=lambda c: c or "top")
def test_help_exits_zero(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = invoke([*command, "--help"], capsys)
    assert code == 0, err
    assert out.startswith("usage: fusecam")
    if command:
        assert f"fusecam {command[0]}" in out.splitlines()[0]
    assert err == ""


# --- bad input: one clear line, non-zero exit, no traceback -----------------------------------


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, Path]:
    text_as_image = tmp_path / "x.jpg"
    text_as_image.write_text("not an image\n")
    text_as_video = tmp_path / "x.mp4"
    text_as_video.write_text("not a video\n")
    return {
        "text_jpg": text_as_image,
        "text_mp4": text_as_video,
        "missing_mp4": tmp_path / "missing.mp4",
        "missing_jpg": tmp_path / "missing.jpg",
        "out_png": tmp_path / "out.png",
        "bad_record": tmp_path / "out.xyz",
    }


def _bad_cases(faces: dict[str, Path], files: dict[str, Path]) -> dict[str, tuple[list[str], str]]:
    """name → (argv, text the one error line must contain)."""
    grace, eileen = str(faces["grace_hopper"]), str(faces["eileen_collins"])
    out = str(files["out_png"])
    return {
        "unknown option": (["run", "--bogus"], "unrecognized arguments: --bogus"),
        "unknown top option": (["--bogus"], "unrecognized arguments: --bogus"),
        "frames 0": (["run", "--frames", "0"], "--frames: '0' must be > 0"),
        "frames not a number": (["bench", "--frames", "ten"], "'ten' is not a whole number"),
        "size 12": (["run", "--size", "12"], "size must look like 1280x720"),
        "bench size 12": (["bench", "--size", "12"], "size must look like 1280x720"),
        "size too small": (["run", "--size", "8x8"], "out of range"),
        "bench zoom below 1": (["bench", "--zoom", "0.5"], "zoom '0.5' is out of range"),
        "missing source face": (
            ["swap", "--source", str(files["missing_jpg"]), "--target", eileen, "--output", out],
            f"{files['missing_jpg']}: no such file",
        ),
        "missing target": (
            ["swap", "--source", grace, "--target", str(files["missing_mp4"]), "--output", out],
            f"{files['missing_mp4']}: no such file",
        ),
        "unreadable target image": (
            ["swap", "--source", grace, "--target", str(files["text_jpg"]), "--output", out],
            f"{files['text_jpg']}: not a readable image",
        ),
        "unreadable target video": (
            ["swap", "--source", grace, "--target", str(files["text_mp4"]), "--output", out],
            f"{files['text_mp4']}: not a readable video",
        ),
        "nonexistent input video": (
            ["run", "--input", str(files["missing_mp4"]), "--no-preview", "--frames", "3"],
            f"{files['missing_mp4']}: no such video file",
        ),
        "bench nonexistent input": (
            ["bench", "--input", str(files["missing_mp4"]), "--frames", "3"],
            f"{files['missing_mp4']}: no such video file",
        ),
        "unopenable camera": (
            ["run", "--camera", "/dev/does-not-exist", "--no-preview", "--frames", "3"],
            "camera '/dev/does-not-exist': cannot open",
        ),
        "unsupported recording format": (
            [
                "run",
                "--demo",
                "--frames",
                "3",
                "--no-preview",
                "--record",
                str(files["bad_record"]),
            ],
            "unsupported video format '.xyz'",
        ),
        "both demo and input": (
            ["run", "--demo", "--input", str(files["text_mp4"])],
            "not allowed with argument",
        ),
    }


BAD_CASE_NAMES = [
    "unknown option",
    "unknown top option",
    "frames 0",
    "frames not a number",
    "size 12",
    "bench size 12",
    "size too small",
    "bench zoom below 1",
    "missing source face",
    "missing target",
    "unreadable target image",
    "unreadable target video",
    "nonexistent input video",
    "bench nonexistent input",
    "unopenable camera",
    "unsupported recording format",
    "both demo and input",
]


@pytest.mark.parametrize("case", BAD_CASE_NAMES)
def test_bad_input_gives_one_clear_line_and_a_nonzero_exit(
    case: str,
    sample_faces: dict[str, Path],
    bad_files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv, expected = _bad_cases(sample_faces, bad_files)[case]
    code, out, err = invoke(argv, capsys)
    assert code != 0
    assert "Traceback" not in err and "Traceback" not in out
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("fusecam")
    assert "error" in lines[0]
    assert expected in lines[0]
    assert not bad_files["out_png"].exists()


def test_bad_case_list_is_complete(sample_faces: dict[str, Path], tmp_path: Path) -> None:
    files = {name: tmp_path / name for name in ("text_jpg", "text_mp4", "missing_mp4")}
    files |= {name: tmp_path / name for name in ("missing_jpg", "out_png", "bad_record")}
    assert sorted(_bad_cases(sample_faces, files)) == sorted(BAD_CASE_NAMES)


# --- end to end -------------------------------------------------------------------------------


def test_run_demo_records_the_requested_frames(tmp_path: Path, count_frames: CountFrames) -> None:
    out = tmp_path / "OUT.mp4"
    result = run_fusecam(
        ["run", "--demo", "--frames", "60", "--no-preview", "--record", str(out)], cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    published = int(re.findall(r"frames (\d+)  fps", result.stderr)[-1])
    recorded = int(re.findall(r"recorded (\d+) frames", result.stderr)[-1])
    assert 0 < published <= 60
    frames, size = count_frames(out)
    assert size == (1280, 720)
    # The file holds what the CLI says it wrote. The recorder follows the capture clock
    # (slots of frames the engine dropped, or that a busy machine captured late, hold the
    # previous picture), so it is at least every published frame, not exactly 60.
    assert frames == recorded
    assert frames >= published


GRACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"


def _swap_args(target: Path) -> list[str]:
    return ["swap", "--source", str(GRACE), "--target", str(target), "--output", "out.png"]


@pytest.mark.parametrize(
    ("make_args", "expected"),
    [
        (lambda d: ["run", "--input", str(d / "x.mp4"), "--no-preview"], "not a readable video"),
        (
            lambda d: ["run", "--camera", "/dev/does-not-exist", "--no-preview"],
            "camera '/dev/does-not-exist': cannot open",
        ),
        # The target is checked before any model loads, so no provider warnings either.
        (lambda d: _swap_args(d / "x.jpg"), "not a readable image"),
        (lambda d: _swap_args(d / "x.mp4"), "not a readable video"),
    ],
    ids=["run fake video", "run missing camera", "swap fake image", "swap fake video"],
)
def test_terminal_shows_one_line_without_native_library_noise(
    make_args: Callable[[Path], list[str]], expected: str, tmp_path: Path
) -> None:
    (tmp_path / "x.mp4").write_text("not a video\n")
    (tmp_path / "x.jpg").write_text("not an image\n")
    result = run_fusecam(make_args(tmp_path), cwd=tmp_path, timeout=60)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("fusecam: error:") and expected in lines[0]


def test_swap_image_writes_a_png_of_the_target_size(
    sample_faces: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "OUT.png"
    target = sample_faces["eileen_collins"]
    code, _, err = invoke(
        ["swap", "--source", str(sample_faces["grace_hopper"]), "--target", str(target),
         "--output", str(out)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    written = cv2.imread(str(out))
    assert written is not None, "output is not a readable image"
    expected = cv2.imread(str(target))
    assert expected is not None
    assert written.shape == expected.shape
    assert str(out) in err


def test_swap_video_writes_every_frame(
    sample_faces: dict[str, Path],
    make_video: Callable[..., Path],
    tmp_path: Path,
    count_frames: CountFrames,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = make_video(frames=6, size=(96, 64), name="target.mkv")
    out = tmp_path / "OUT.mp4"
    code, _, err = invoke(
        ["swap", "--source", str(sample_faces["grace_hopper"]), "--target", str(target),
         "--output", str(out)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert count_frames(out) == (6, (96, 64))
    assert "wrote 6 frames" in err


def test_bench_prints_a_table_and_writes_the_json(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    check_bench_report: Callable[..., None],
) -> None:
    out = tmp_path / "OUT.json"
    code, stdout, err = invoke(
        ["bench", "--demo", "--size", "320x180", "--frames", "20", "--json", str(out)], capsys
    )
    assert code == 0, err
    assert "mode max" in stdout and "mode paced" in stdout
    assert "p50 ms" in stdout and "end_to_end" in stdout
    # The JSON went to the file; the terminal shows only the table.
    assert not any(line.startswith(("{", "}")) for line in stdout.splitlines())
    report = json.loads(out.read_text())
    check_bench_report(report, frames=20, size=(320, 180))


def test_without_a_display_the_gui_explains_the_headless_command(repo_root: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    result = run_fusecam([], cwd=repo_root, env=env, timeout=60)
    assert result.returncode == 3  # `make run` ends there without "make: *** Error"
    assert "No display found" in result.stderr
    assert "fusecam run --demo" in result.stderr
    assert "Traceback" not in result.stderr


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from app import __version__

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"fusecam {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_doctor_prints_each_check_and_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = invoke(["doctor", "--provider", "cpu"], capsys)
    assert code == 0, err
    for title in ("onnxruntime", "models run on", "virtual camera", "stream port"):
        assert f"] {title}:" in out
    assert "models run on: CPU" in out
    assert out.rstrip().splitlines()[-1].startswith(("all good", "works; missing pieces:"))
