"""A named worker thread with start/stop/join that reports its exceptions."""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable

log = logging.getLogger(__name__)

ErrorCallback = Callable[[str, BaseException], None]


class Worker(ABC):
    """Base for every engine thread. Subclasses implement `_run` and poll `stopping`.

    An exception escaping `_run` is logged, stored in `error` and passed to `on_error`;
    it never disappears silently.
    """

    def __init__(self, name: str, on_error: ErrorCallback | None = None) -> None:
        self.name = name
        self.on_error = on_error
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @abstractmethod
    def _run(self) -> None:
        """The thread's body: runs until it is done or `stopping` is set."""

    def _on_stop(self) -> None:  # noqa: B027 (an optional hook: most workers have nothing to wake)
        """Called from `stop` before joining; wake anything `_run` may be blocked on."""

    def _main(self) -> None:
        try:
            self._run()
        except BaseException as exc:
            self.error = exc
            if self.on_error is None:
                log.exception("thread %s failed", self.name)
            else:  # the callback tells the user; the traceback is for --verbose
                log.debug("thread %s failed", self.name, exc_info=exc)
                self.on_error(self.name, exc)

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._main, name=self.name, daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """Ask the thread to finish and return at once (`stop` also waits for it)."""
        self._stop.set()
        self._on_stop()

    def stop(self, timeout: float = 2.0) -> bool:
        """Ask the thread to finish and join it; True when it ended within `timeout`."""
        self.request_stop()
        if self._thread is None:
            return True
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True when a stop was requested meanwhile."""
        return self._stop.wait(seconds)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)
