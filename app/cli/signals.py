"""SIGTERM and SIGHUP stop a command the way Ctrl+C (SIGINT) does.

By default they kill the interpreter on the spot: no `finally`, no clean-up, so a swap
left its half-written output and a recording its unfinished file. Here they raise
`Terminated` (a KeyboardInterrupt) like SIGINT does, or — while a live run is stopping
on its own terms — set an event the run polls.

The first stop signal decides: from then on every stop signal is ignored until the
process exits, because a stop is already under way. A second Ctrl+C used to land in the
middle of the clean-up (an "Exception ignored … KeyboardInterrupt" traceback, a
temporary file left behind) and a second SIGTERM after the recording was finished turned
a clean exit 0 into 143.
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


def _stopping(_signum: int, _frame: FrameType | None) -> None:
    """A stop signal after the first: the stop under way already answers it."""


def _latch() -> None:
    """Ignore every further stop signal, for the rest of the process (handlers run on
    the main thread, where the signal module may set them)."""
    for signum in _STOP_SIGNALS:
        signal.signal(signum, _stopping)


def _raise(signum: int, _frame: FrameType | None) -> None:
    _latch()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
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
            # Once a stop began, the latch stays until the process exits.
            if signal.getsignal(signum) is not _stopping:
                signal.signal(signum, old)


@contextmanager
def terminate_like_interrupt() -> Iterator[None]:
    """For the duration, SIGTERM and SIGHUP raise `Terminated` in the main thread, and
    SIGINT a KeyboardInterrupt; the first of them latches the rest off."""
    with _handlers(_raise, _STOP_SIGNALS):
        yield


@contextmanager
def stop_requests(event: threading.Event) -> Iterator[None]:
    """For the duration, SIGINT, SIGTERM and SIGHUP only set `event`: a live run polls
    it and stops in order (outputs closed and checked) instead of unwinding mid-call."""

    def request(_signum: int, _frame: FrameType | None) -> None:
        _latch()
        event.set()

    with _handlers(request, _STOP_SIGNALS):
        yield
