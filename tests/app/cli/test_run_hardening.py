"""`fusecam run` under signals, a full disk, inputs that stop delivering and sizes no
machine can hold (issue 14). Real processes, real signals, real files."""

from __future__ import annotations

import signal
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.app.cli.hardening_support import (
    GRACE,
    growing_file,
    leftovers,
    run_on_full_disk,
    signal_and_wait,
    start_fusecam,
    wait_for,
)
from tests.app.cli.test_cli import fusecam_command, run_fusecam
from tests.conftest import write_video

CountFrames = Callable[[Path], tuple[int, tuple[int, int] | None]]
RECORD = ["run", "--demo", "--size", "320x180", "--no-preview"]


def _recording(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    """A live run recording to tmp_path/rec.mp4, once its file has some frames in it."""
    path = tmp_path / "rec.mp4"
    process = start_fusecam([*RECORD, "--record", str(path)], tmp_path)
    if not wait_for(growing_file(tmp_path, "rec.*.recording.mp4", 20_000)):
        process.kill()
        pytest.fail(f"the recording never grew:\n{process.communicate()[1]}")
    return process, path


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signals_stop_a_recording_cleanly(
    tmp_path: Path, signum: int, count_frames: CountFrames
) -> None:
    """The issue's case: SIGTERM or SIGHUP left 0 decodable frames ("moov atom not found").
    Each now stops like Ctrl+C: the file is finished, checked and named."""
    process, path = _recording(tmp_path)
    code, err, seconds = signal_and_wait(process, signum)
    assert code == 0, err
    frames, size = count_frames(path)
    assert f"recorded {frames} frames to {path}" in err
    assert frames > 0 and size == (320, 180)
    assert leftovers(tmp_path) == []
    print(f"{signal.Signals(signum).name}: exited {seconds * 1000:.0f} ms after the signal")


def test_a_killed_recording_leaves_a_playable_copy_and_no_final_file(
    tmp_path: Path, count_frames: CountFrames
) -> None:
    """kill -9 runs no code at all: what protects the user is the crash-safe container
    (fragmented MP4) under a temporary name; the final name never holds a broken file."""
    process, path = _recording(tmp_path)
    signal_and_wait(process, signal.SIGKILL)
    assert not path.exists()
    (kept,) = leftovers(tmp_path)
    assert count_frames(tmp_path / kept)[0] > 0


def test_a_recording_onto_a_full_disk_stops_says_so_and_keeps_what_plays(tmp_path: Path) -> None:
    """The issue's case: a 2 MB tmpfs, Ctrl+C after 25 s → rc 0, "recorded 699 frames",
    a file that does not play. Noise-free demo frames still fill 512 KB in seconds."""
    code, err, files = run_on_full_disk(
        lambda disk: ["run", "--demo", "--no-preview", "--record", str(disk / "rec.mp4")],
        "512k",
        tmp_path,
        interrupt_after_s=15,
    )
    assert code == 1, err
    assert "disk full" in err and "recorded" not in err.split("disk full")[-1]
    assert "rec.mp4" not in files
    (kept,) = files  # the recording so far, under its temporary name, and it plays
    assert files[kept]["frames"], files
    assert "frames before it are in" in err and kept in err


@pytest.mark.parametrize("what", ["input", "source"])
def test_recording_over_an_input_is_refused(
    tmp_path: Path, what: str, count_frames: CountFrames
) -> None:
    clip = write_video(tmp_path / "clip.mkv", frames=20)
    face = tmp_path / "face.jpg"
    face.write_bytes(GRACE.read_bytes())
    args = ["run", "--input", str(clip), "--source", str(face), "--no-preview", "--frames", "5"]
    target = clip if what == "input" else face
    result = run_fusecam([*args, "--record", str(target)], cwd=tmp_path)
    assert result.returncode == 2
    assert "writing it would destroy the input" in result.stderr
    assert count_frames(clip)[0] == 20 and face.read_bytes() == GRACE.read_bytes()


def test_an_input_that_stops_delivering_ends_the_run(tmp_path: Path) -> None:
    """The issue's case: an image with an unknown extension is opened as a one-frame video
    and, looped for --frames, spun at 0 fps and 95 % CPU forever."""
    odd = tmp_path / "photo.unknownext"
    odd.write_bytes(GRACE.read_bytes())
    result = run_fusecam(
        ["run", "--no-preview", "--frames", "10", "--input", str(odd)], cwd=tmp_path, timeout=120
    )
    assert result.returncode == 1, result.stderr
    assert "stopped delivering frames" in result.stderr


# --- sizes ------------------------------------------------------------------------------------


def _png(path: Path, width: int, height: int) -> Path:
    """A real grey PNG of that size, written row by row: 20000×20000 is 1.2 GB decoded,
    a few hundred KB on disk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    squeeze = zlib.compressobj(9)
    row = b"\x00" + b"\x80" * width  # filter byte, then grey pixels
    data = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )
    return path


# Runs one command and prints the peak RSS (MB) of its own children only: this test
# process's RUSAGE_CHILDREN holds the peak of every child any earlier test started.
_PEAK = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
)


def _peak_rss_mb(args: list[str], cwd: Path) -> float:
    measured = subprocess.run(
        [sys.executable, "-c", _PEAK, *fusecam_command(), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return float(measured.stdout.strip())


def test_huge_images_are_refused_from_their_header(tmp_path: Path) -> None:
    """The issue's cases: a 1.2 MB 20000×20000 PNG took 6.1 GB in `run`, 2.6 GB in `swap`;
    40000×40000 ended in a cv2.error traceback."""
    big = _png(tmp_path / "big.png", 20000, 20000)
    assert big.stat().st_size < 2_000_000
    for args in (
        ["run", "--no-preview", "--frames", "3", "--input", str(big)],
        ["swap", "--source", str(GRACE), "--target", str(big), "--output", "out.png"],
        ["swap", "--source", str(big), "--target", str(GRACE), "--output", "out.png"],
    ):
        result = run_fusecam(args, cwd=tmp_path)
        lines = [line for line in result.stderr.splitlines() if "WARNING" not in line]
        assert result.returncode == 2, result.stderr
        assert len(lines) == 1 and "20000×20000 is 400 megapixels" in lines[0], result.stderr
        # Refused before decoding: nowhere near the 1.2 GB one decoded frame takes.
        assert _peak_rss_mb(args, tmp_path) < 1000
    assert not (tmp_path / "out.png").exists()


def test_sizes_asked_for_are_capped(tmp_path: Path) -> None:
    """The issue's case: `--demo --size 8192x8192` sat in a blur for minutes and ignored
    Ctrl+C. 8192×8192 is 67 megapixels: refused as a usage error."""
    result = run_fusecam(["run", "--demo", "--size", "8192x8192", "--no-preview"], cwd=tmp_path)
    assert result.returncode == 2
    assert "67 megapixels" in result.stderr and "(see 'fusecam run --help')" in result.stderr
