"""The first stop signal latches the rest off, shown with real signals sent to a real
process at the moments a user's second Ctrl+C or a service manager's second SIGTERM
used to land: in the middle of the clean-up, and after a live run had stopped (while it
printed "recorded N frames"). Each runs in its own interpreter: the latch lasts until
the process exits, as it must."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import os, signal, threading, time
from app.cli.signals import exit_status, stop_requests, terminate_like_interrupt

def send(signum):
    os.kill(os.getpid(), signum)
    time.sleep(0.2)  # the handler runs at the next bytecode, well within this
"""


def run(code: str) -> subprocess.CompletedProcess[str]:
    script = PRELUDE + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(("name", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_second_signal_during_the_clean_up_lets_it_finish(name: str, status: int) -> None:
    done = run(
        f"""
        cleaned = False
        try:
            with terminate_like_interrupt():
                try:
                    send(signal.{name})  # the first: the swap unwinds
                finally:
                    send(signal.{name})  # the second, while the temporary is removed
                    cleaned = True
        except KeyboardInterrupt as exc:
            print("status", exit_status(exc), "cleaned", cleaned)
        send(signal.{name})  # a third, after the command, while the process exits
        print("exited quietly")
        """
    )
    assert done.returncode == 0, done.stderr
    assert f"status {status} cleaned True" in done.stdout, done.stderr
    assert "exited quietly" in done.stdout and done.stderr == ""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_second_signal_after_a_live_run_stopped_changes_nothing(name: str) -> None:
    done = run(
        f"""
        stop = threading.Event()
        with terminate_like_interrupt():
            with stop_requests(stop):
                send(signal.{name})  # the first: the run stops in order
                assert stop.is_set()
            send(signal.{name})  # the second, while it prints what it recorded
            print("recorded 405 frames")
        send(signal.{name})
        print("exit 0")
        """
    )
    assert done.returncode == 0, done.stderr
    assert "recorded 405 frames" in done.stdout and "exit 0" in done.stdout
    assert done.stderr == ""


def test_without_a_signal_the_handlers_are_put_back() -> None:
    done = run(
        """
        before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        with terminate_like_interrupt(), stop_requests(threading.Event()):
            pass
        assert {s: signal.getsignal(s) for s in before} == before
        try:
            send(signal.SIGINT)
        except KeyboardInterrupt:
            print("Ctrl+C works as before")
        """
    )
    assert "Ctrl+C works as before" in done.stdout, done.stderr
