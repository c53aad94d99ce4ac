"""Leftovers and repeated signals, in real `fusecam` processes: a swap killed with kill -9
leaves its temporary, and the next swap to that name removes it; a second (third…)
Ctrl+C or SIGTERM while a recording or a swap is stopping changes nothing — no
traceback, the first signal's exit status, the file finished."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import cv2
import pytest

from engine.core.imageio import read_image
from tests.app.cli.hardening_support import (
    GRACE,
    growing_file,
    leftovers,
    start_fusecam,
    wait_for,
)
from tests.app.cli.test_cli import run_fusecam
from tests.app.cli.test_run_hardening import RECORD, CountFrames


def face_clip(path: Path, frames: int) -> Path:
    """Every frame a face, so each one is really swapped and a swap takes a while."""
    face = cv2.resize(read_image(GRACE), (320, 240), interpolation=cv2.INTER_AREA)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (320, 240))
    for _ in range(frames):
        writer.write(face)
    writer.release()
    return path


def swap_args(target: Path, output: Path) -> list[str]:
    return ["swap", "--source", str(GRACE), "--target", str(target), "--output", str(output)]


def signal_repeatedly(process: subprocess.Popen[str], signum: int) -> tuple[int, str]:
    """`signum`, then again every 50 ms until the process is gone (a user pressing
    Ctrl+C again because the stop seems slow; a service manager resending SIGTERM)."""
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        try:
            process.send_signal(signum)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    _, err = process.communicate(timeout=30)
    return process.returncode, err


def test_a_killed_swaps_temporary_is_removed_by_the_next_swap(tmp_path: Path) -> None:
    target = face_clip(tmp_path / "long.avi", 600)
    output = tmp_path / "out.mkv"
    process = start_fusecam(swap_args(target, output), tmp_path)
    assert wait_for(growing_file(tmp_path, "out.*.part.mkv", 50_000)), process.stderr
    process.kill()  # kill -9: no clean-up code runs at all
    process.communicate()
    (stale,) = leftovers(tmp_path)
    short = face_clip(tmp_path / "short.avi", 5)
    done = run_fusecam(swap_args(short, output), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert output.is_file()
    assert leftovers(tmp_path) == [], stale  # the earlier run's temporary is gone


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_more_stop_signals_during_a_recordings_stop_change_nothing(
    tmp_path: Path, signum: int, count_frames: CountFrames
) -> None:
    path = tmp_path / "rec.mp4"
    process = start_fusecam([*RECORD, "--record", str(path)], tmp_path)
    if not wait_for(growing_file(tmp_path, "rec.*.recording.mp4", 20_000)):
        process.kill()
        pytest.fail(f"the recording never grew:\n{process.communicate()[1]}")
    code, err = signal_repeatedly(process, signum)
    assert code == 0, err  # as after one signal: a clean stop
    assert "Traceback" not in err and "Exception ignored" not in err, err
    frames, _ = count_frames(path)
    assert frames > 0 and f"recorded {frames} frames to {path}" in err
    assert leftovers(tmp_path) == []


def test_more_ctrl_c_during_a_swaps_clean_up_change_nothing(tmp_path: Path) -> None:
    target = face_clip(tmp_path / "long.avi", 600)
    output = tmp_path / "out.mkv"
    process = start_fusecam(swap_args(target, output), tmp_path)
    assert wait_for(growing_file(tmp_path, "out.*.part.mkv", 50_000)), process.stderr
    code, err = signal_repeatedly(process, signal.SIGINT)
    assert code == 130, err  # as after one Ctrl+C
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "interrupted; " in err and "was not written" in err
    assert not output.exists() and leftovers(tmp_path) == []
