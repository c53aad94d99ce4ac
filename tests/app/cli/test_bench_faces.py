"""`fusecam bench --faces main|all|map` with the real face pipeline, and the clips the bench
is measured on (scene cuts, two faces side by side) built from the test videos."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from app.cli.main import build_parser, main
from engine.tools.bench_clips import ClipError, write_cuts, write_side_by_side


def bench(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    out = tmp_path / "bench.json"
    code = main(["bench", "--demo", "--size", "480x270", "--json", str(out), *argv])
    _, err = capsys.readouterr()
    assert code == 0, err
    report: dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.mark.parametrize("faces", ["all", "map"])
def test_faces_option_reaches_the_runs(
    faces: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = bench(["--frames", "12", "--faces", faces], tmp_path, capsys)
    for run in report["runs"]:
        assert run["faces"] == faces
        # The demo portrait is one face, found and swapped on (nearly) every frame.
        assert 0.5 <= run["faces_per_frame"] <= 1.0


def test_faces_defaults_to_main_and_rejects_others(capsys: pytest.CaptureFixture[str]) -> None:
    assert build_parser().parse_args(["bench", "--demo"]).faces == "main"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--demo", "--faces", "some"])
    assert "invalid choice" in capsys.readouterr().err


def read_all(path: Path) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    return frames


def diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


@pytest.mark.testdata
def test_cut_clip_alternates_between_the_clips(testdata_dir: Path, tmp_path: Path) -> None:
    a, b = (
        testdata_dir / "video" / "obama_1.mp4",
        testdata_dir / "video" / "lin_manuel_miranda_1.mp4",
    )
    out = tmp_path / "cuts.mp4"
    write_cuts(a, b, out, frames=20, size=(320, 180), segment=5)
    frames = read_all(out)
    assert len(frames) == 20 and frames[0].shape == (180, 320, 3)
    # Inside a segment consecutive frames are alike; across a cut they are not.
    within = [diff(frames[i], frames[i + 1]) for i in range(19) if (i + 1) % 5]
    across = [diff(frames[i], frames[i + 1]) for i in (4, 9, 14)]
    assert min(across) > 3 * max(within), (within, across)
    # Each clip carries on where it left off: segment 3 (clip a again) follows segment 1.
    assert diff(frames[4], frames[10]) < min(across)


@pytest.mark.testdata
def test_side_by_side_clip_has_a_face_in_each_half(testdata_dir: Path, tmp_path: Path) -> None:
    from engine.core.settings import DetectionSettings
    from engine.face.analyzer import FaceAnalyzer

    v = testdata_dir / "video"
    out = tmp_path / "two.mp4"
    # The same clip in both halves: two faces of the same size, one per half.
    write_side_by_side(v / "obama_1.mp4", v / "obama_1.mp4", out, frames=3, size=(640, 360))
    frames = read_all(out)
    assert len(frames) == 3 and frames[0].shape == (360, 640, 3)
    found = FaceAnalyzer.bundled(eyes=False).detect(frames[1], DetectionSettings())
    centres = sorted((d.box[0] + d.box[2]) / 2 for d in found)
    assert len(centres) == 2 and centres[0] < 320 < centres[1], centres


def test_a_missing_clip_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ClipError, match="cannot be opened"):
        write_cuts(tmp_path / "none.mp4", tmp_path / "none.mp4", tmp_path / "out.mp4")
