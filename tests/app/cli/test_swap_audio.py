"""`fusecam swap` on a video: the progress bar on a terminal (a real pty) and the target's
audio kept (a generated clip with a tone; the output's audio stream decoded)."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import av

from engine.core.paths import SAMPLE_FACES_DIR
from tests.app.cli.test_cli import fusecam_command, run_fusecam
from tests.app.cli.test_status_output import read_all
from tests.engine.outputs.test_audio_mux import TONE_HZ, decode_audio, dominant_hz, make_clip


def swap_args(target: Path, output: Path) -> list[str]:
    source = SAMPLE_FACES_DIR / "grace_hopper.jpg"
    return ["swap", "--source", str(source), "--target", str(target), "--output", str(output)]


def test_swap_keeps_the_targets_audio(tmp_path: Path) -> None:
    target = make_clip(tmp_path / "tone.mp4", seconds=2.0)
    output = tmp_path / "out.mp4"
    done = run_fusecam(swap_args(target, output), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote 20 frames" in done.stderr
    assert "kept the target's audio (copied aac)" in done.stderr
    samples, rate = decode_audio(output)
    assert abs(dominant_hz(samples, rate) - TONE_HZ) < 5
    assert abs(len(samples) / rate - 2.0) < 0.15
    with av.open(str(output)) as container:
        assert sum(1 for _ in container.decode(video=0)) == 20
    # Not on a terminal: no bar redrawn with carriage returns in the log.
    assert "\r" not in done.stderr


def test_a_silent_target_gives_a_silent_output(tmp_path: Path) -> None:
    target = make_clip(tmp_path / "silent.mp4", tone=False)
    done = run_fusecam(swap_args(target, tmp_path / "out.mp4"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "audio" not in done.stderr
    with av.open(str(tmp_path / "out.mp4")) as container:
        assert not container.streams.audio


def test_on_a_terminal_swap_shows_a_progress_bar_with_time_left(tmp_path: Path) -> None:
    target = make_clip(tmp_path / "tone.mp4", seconds=3.0)
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [*fusecam_command(), *swap_args(target, tmp_path / "out.mp4")],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=tmp_path,
    )
    os.close(follower)
    try:
        text = read_all(leader).decode()
    finally:
        os.close(leader)
    assert proc.wait(timeout=120) == 0, text
    assert "fusecam: swapping" in text and "30/30" in text and "100%" in text
    assert "<00:00" in text  # tqdm's time left
    assert "frame/s" in text
