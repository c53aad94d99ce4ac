"""Helpers for the hardening tests: the real command in a subprocess, files that must not
be there, and a small tmpfs (a real full disk) in a private mount namespace."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.core.paths import SAMPLE_FACES_DIR
from tests.app.cli.test_cli import fusecam_command
from tests.conftest import REPO_ROOT

GRACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"


def leftovers(folder: Path) -> list[str]:
    """Temporary files a writer left in `folder` ("x.ab12cd.part", "….recording.mp4")."""
    return sorted(p.name for p in folder.iterdir() if ".part" in p.name or ".recording" in p.name)


def start_fusecam(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    # faulthandler on: a process that hangs is made to print every thread's stack
    # (SIGABRT, in signal_and_wait) so the failure says where it hung.
    return subprocess.Popen(
        [*fusecam_command(), *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )


def wait_for(condition: Callable[[], bool], timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def signal_and_wait(
    process: subprocess.Popen[str], signum: int, timeout: float = 30.0
) -> tuple[int, str, float]:
    """Send `signum`; (exit code, stderr, seconds until the process was gone)."""
    sent = time.monotonic()
    process.send_signal(signum)
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)  # faulthandler prints the stacks, then it dies
        try:
            _, err = process.communicate(timeout=10.0)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
        pytest.fail(f"still running {timeout:.0f} s after {signal.Signals(signum).name}:\n{err}")
    return process.returncode, err, time.monotonic() - sent


def growing_file(folder: Path, pattern: str, min_bytes: int) -> Callable[[], bool]:
    """A condition: some file matching `pattern` in `folder` has reached `min_bytes`."""

    def check() -> bool:
        return any(p.stat().st_size >= min_bytes for p in folder.glob(pattern))

    return check


def tmpfs_available() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


_PROBE = """
import json, sys
from pathlib import Path
sys.path.insert(0, {repo})
from tests.conftest import count_video_frames
folder = Path(sys.argv[1])
files = {{}}
for path in sorted(folder.iterdir()):
    frames = count_video_frames(path)[0] if path.suffix in (".mp4", ".mkv", ".avi") else None
    files[path.name] = {{"bytes": path.stat().st_size, "frames": frames}}
print("PROBE " + json.dumps(files))
"""


def run_on_full_disk(
    args_for: Callable[[Path], list[str]],
    size: str,
    tmp_path: Path,
    *,
    interrupt_after_s: float = 0,
) -> tuple[int, str, dict[str, dict[str, int | None]]]:
    """Run fusecam with its output on a tmpfs of `size` bytes ("512k"), mounted in a
    private namespace (unshare: no root needed, nothing left mounted). Returns the exit
    code, stderr and what the tmpfs holds afterwards (names, sizes, decodable frames).
    `interrupt_after_s`: send Ctrl+C after that long (a live run)."""
    if not tmpfs_available():
        pytest.skip("no unprivileged tmpfs here (unshare -rm); the fake-writer test covers it")
    disk = tmp_path / "tiny"
    disk.mkdir(parents=True)
    command = " ".join(f"'{part}'" for part in [*fusecam_command(), *args_for(disk)])
    if interrupt_after_s:
        command = f"timeout --preserve-status -s INT {interrupt_after_s} {command}"
    probe = _PROBE.format(repo=json.dumps(str(REPO_ROOT)))
    script = (
        f"mount -t tmpfs -o size={size} tmpfs '{disk}' || exit 99\n"
        f"{command}\ncode=$?\n"
        f"'{sys.executable}' -c '{probe}' '{disk}'\nexit $code\n"
    )
    result = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OPENCV_FFMPEG_LOGLEVEL": "8"},
        check=False,
    )
    assert result.returncode != 99, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("PROBE ")]
    assert lines, result.stdout + result.stderr
    return result.returncode, result.stderr, json.loads(lines[-1].removeprefix("PROBE "))
