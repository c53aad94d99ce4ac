"""`fusecam run --debug-overlay`: the mesh, boxes and pose axes reach the outputs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.cli.main import build_parser, main

MESH_BGR = np.array([90, 220, 90])  # the overlay's mesh colour
ReadFrames = Callable[[Path], list[np.ndarray]]  # the `read_frames` fixture (tests/conftest.py)


def record_run(read_frames: ReadFrames, tmp_path: Path, portrait: Path, *extra: str) -> np.ndarray:
    """Run `fusecam run` headless on a still portrait, recording losslessly; the last frame."""
    out = tmp_path / f"out{len(extra)}.mkv"
    argv = ["run", "--input", str(portrait), "--frames", "3", "--no-preview"]
    code = main([*argv, "--record", str(out), *extra])
    assert code == 0
    frames = read_frames(out)
    assert frames, f"nothing recorded to {out}"
    return frames[-1]


def mesh_coloured(frame: np.ndarray) -> int:
    return int((np.abs(frame.astype(np.int16) - MESH_BGR).max(axis=2) < 40).sum())


def test_run_accepts_debug_overlay() -> None:
    args = build_parser().parse_args(["run", "--demo", "--debug-overlay"])
    assert args.debug_overlay is True
    assert build_parser().parse_args(["run", "--demo"]).debug_overlay is False


def test_debug_overlay_is_drawn_on_the_recorded_output(
    tmp_path: Path,
    sample_faces: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    read_frames: ReadFrames,
) -> None:
    portrait = sample_faces["eileen_collins"]
    plain = record_run(read_frames, tmp_path, portrait)
    overlaid = record_run(read_frames, tmp_path, portrait, "--debug-overlay")
    capsys.readouterr()
    original = cv2.imread(str(portrait))
    assert original is not None
    assert plain.shape == overlaid.shape == original.shape
    # Measured: ~5000 mesh-green pixels with the overlay, none without.
    assert mesh_coloured(plain) < 50
    assert mesh_coloured(overlaid) > 1000
    changed = np.abs(overlaid.astype(np.int16) - plain.astype(np.int16)).max(axis=2) > 30
    ys, xs = np.nonzero(changed)
    # Drawn around the face in the upper middle of the portrait, not over the whole frame.
    h, w = plain.shape[:2]
    assert xs.min() > 0.15 * w
    assert xs.max() < 0.85 * w
    assert ys.max() < 0.5 * h
