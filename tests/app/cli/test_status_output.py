"""`fusecam run`'s status: one line updated in place in a real terminal (a pty), plain
lines when the output is a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from tests.app.cli.test_cli import fusecam_command, run_fusecam

# Long enough for two status updates (one a second) at the demo's 30 fps.
RUN = ["run", "--demo", "--size", "160x90", "--frames", "75", "--no-preview"]


def read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed its end of the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_on_a_terminal_the_status_updates_one_line(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [*fusecam_command(), *RUN], stdin=follower, stdout=follower, stderr=follower, cwd=tmp_path
    )
    os.close(follower)
    try:
        text = read_all(leader).decode()
    finally:
        os.close(leader)
    assert proc.wait(timeout=60) == 0, text
    updates = text.split("\r\x1b[K")[1:]
    assert len(updates) >= 2, text
    assert all(u.startswith("fusecam: frames") for u in updates), updates
    # In place: no update ends its line, except the last (closed before the summary).
    assert not any("\n" in u for u in updates[:-1]), updates
    assert updates[-1].count("\n") >= 1


def test_into_a_pipe_each_status_is_its_own_line(tmp_path: Path) -> None:
    done = run_fusecam(RUN, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\x1b[K" not in done.stderr and "\r" not in done.stderr
    lines = done.stderr.splitlines()
    status = [line for line in lines if line.startswith("fusecam: frames")]
    assert len(status) >= 2  # at least two updates
    assert len([line for line in lines if line.startswith("fusecam: done: ")]) == 1
