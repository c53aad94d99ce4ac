"""The log file and crash reports, in real subprocesses (hooks are per process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app import __version__


def run_python(code: str, log_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FUSECAM_LOG_DIR": str(log_dir)}
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_run_writes_the_log_file(tmp_path: Path) -> None:
    done = run_python(
        "import logging; from app.logs import setup; setup(logging.WARNING); "
        "logging.getLogger('x').info('only in the file')",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "only in the file" not in done.stderr  # the console shows warnings and up
    text = (tmp_path / "fusecam.log").read_text()
    assert f"fusecam {__version__}" in text and "only in the file" in text


def test_an_uncaught_exception_writes_a_crash_report(tmp_path: Path) -> None:
    done = run_python(
        "import logging; from app.logs import setup; setup(logging.WARNING); "
        "raise RuntimeError('boom')",
        tmp_path,
    )
    assert done.returncode == 1
    reports = list(tmp_path.glob("crash-*.txt"))
    assert len(reports) == 1
    assert f"report: {reports[0]}" in done.stderr
    text = reports[0].read_text()
    assert "RuntimeError: boom" in text and "MainThread" in text
    assert "RuntimeError: boom" in (tmp_path / "fusecam.log").read_text()


def test_a_crash_on_another_thread_is_reported_and_listeners_hear_of_it(tmp_path: Path) -> None:
    done = run_python(
        "import logging, threading; from app.logs import setup\n"
        "d = setup(logging.WARNING); d.listeners.append(lambda p: print('heard', p))\n"
        "def work(): raise ValueError('in a worker')\n"
        "t = threading.Thread(target=work, name='worker-x'); t.start(); t.join()\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    (report,) = tmp_path.glob("crash-*.txt")
    assert "'worker-x'" in report.read_text()
    assert f"heard {report}" in done.stdout


def test_setup_twice_keeps_one_log_file_handler(tmp_path: Path) -> None:
    done = run_python(
        "import logging; from app.logs import setup, _LogFile\n"
        "a = setup(logging.WARNING); b = setup(logging.INFO)\n"
        "assert a is b\n"
        "assert sum(isinstance(h, _LogFile) for h in logging.getLogger().handlers) == 1\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
