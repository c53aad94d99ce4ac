"""The stream's access token never reaches the log file, crash reports or the command
lines written into them, and files that can hold it are the user's alone (0600). Real
runs in subprocesses (log handlers and crash hooks are per process)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from app.redact import MASK, redact, redact_argv
from tests.app.cli.test_cli import fusecam_command
from tests.app.test_logs import run_python

TOKEN = "Zq8-secret_Token.42"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_streaming_run_logs_its_command_line_without_the_token(tmp_path: Path) -> None:
    env = {**os.environ, "FUSECAM_LOG_DIR": str(tmp_path / "logs")}
    args = ["-v", "run", "--demo", "--size", "160x120", "--no-preview", "--frames", "5"]
    done = subprocess.run(
        [*fusecam_command(), *args, "--stream", "127.0.0.1:0", "--token", TOKEN],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"?token={TOKEN}" in done.stderr  # the user's own terminal shows the URL to open
    log = tmp_path / "logs" / "fusecam.log"
    text = log.read_text()
    assert "'--token', '***'" in text  # the command line, masked
    assert "stream" in text and TOKEN not in text
    assert mode(log) == 0o600


def test_a_crash_report_holds_no_token(tmp_path: Path) -> None:
    done = run_python(
        "import logging, sys; from app.logs import setup\n"
        f"sys.argv = ['fusecam', 'run', '--stream', '0.0.0.0:8080', '--token={TOKEN}']\n"
        "d = setup(logging.WARNING)\n"
        f"raise RuntimeError('GET /stream.mjpg?token={TOKEN} failed; "
        f"Authorization: Bearer {TOKEN}')\n",
        tmp_path,
    )
    assert done.returncode == 1
    (report,) = tmp_path.glob("crash-*.txt")
    text = report.read_text()
    assert "RuntimeError: GET /stream.mjpg?token=*** failed" in text
    assert "'--token=***'" in text
    assert TOKEN not in text and TOKEN not in (tmp_path / "fusecam.log").read_text()
    assert mode(report) == 0o600 and mode(tmp_path / "fusecam.log") == 0o600


def test_every_shape_the_token_takes_is_masked() -> None:
    secret = "a1b2c3d4e5"
    shapes = [
        f"http://192.168.1.5:8080/stream.mjpg?token={secret}",
        f"/snapshot.jpg?x=1&token={secret}&y=2",
        f"Authorization: Bearer {secret}",
        f"X-Fusecam-Token: {secret}",
        f"fusecam run --token {secret} --stream 0.0.0.0:8080",
        f"fusecam run --token={secret}",
        f"argv ['run', '--token', '{secret}']",
    ]
    for text in shapes:
        masked = redact(text)
        assert secret not in masked and MASK in masked, text
    assert redact(f"the token is {secret}.", [secret]) == f"the token is {MASK}."
    assert redact_argv(["run", "--token", secret, "--token=" + secret, "--stream", "x"]) == [
        "run",
        "--token",
        MASK,
        "--token=" + MASK,
        "--stream",
        "x",
    ]
    assert redact("nothing secret here") == "nothing secret here"
