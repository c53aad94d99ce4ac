"""SIGTERM and SIGHUP stop a command the way Ctrl+C (SIGINT) does.

By default they kill the interpreter on the spot: no `finally`, no clean-up, so a swap
left its half-written output and a recording its unfinished file. Here they raise
`Terminated` (a KeyboardInterrupt) like SIGINT does, or — while a live run is stopping
on its own terms — set an event the run polls.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived (`signum` says which)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(exc: KeyboardInterrupt) -> int:
    """The shell's convention: 128 + the signal number (130 for Ctrl+C)."""
    return 128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)


def _raise(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextmanager
def _handlers(handler: signal._HANDLER, signums: tuple[int, ...]) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (a test calling main() elsewhere)
        return
    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


@contextmanager
def terminate_like_interrupt() -> Iterator[None]:
    """For the duration, SIGTERM and SIGHUP raise `Terminated` in the main thread."""
    with _handlers(_raise, tuple(s for s in _STOP_SIGNALS if s != signal.SIGINT)):
        yield


@contextmanager
def stop_requests(event: threading.Event) -> Iterator[None]:
    """For the duration, SIGINT, SIGTERM and SIGHUP only set `event`: a live run polls
    it and stops in order (outputs closed and checked) instead of unwinding mid-call."""

    def request(_signum: int, _frame: FrameType | None) -> None:
        event.set()

    with _handlers(request, _STOP_SIGNALS):
        yield
