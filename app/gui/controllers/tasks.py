"""Slow one-off jobs (open a camera, enumerate cameras, load a face) off the GUI thread.

One named `Worker` thread runs the jobs in order; each result comes back to the GUI
thread through a queued Qt signal and is handed to the callback given at submit time.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from engine.core.threads import Worker

log = logging.getLogger(__name__)

Job = Callable[[], Any]
Done = Callable[[Any, BaseException | None], None]
_Report = Callable[[int, Any, BaseException | None], None]


class _JobThread(Worker):
    def __init__(self, name: str, report: _Report) -> None:
        super().__init__(name)
        self._jobs: queue.Queue[tuple[int, Job]] = queue.Queue()
        self._report = report

    def put(self, token: int, job: Job) -> None:
        self._jobs.put((token, job))

    def _run(self) -> None:
        while not self.stopping:
            try:
                token, job = self._jobs.get(timeout=0.1)
            except queue.Empty:
                continue
            try:
                result = job()
            except Exception as exc:  # handed to the caller, who shows it to the user
                self._report(token, None, exc)
            else:
                self._report(token, result, None)

    @property
    def pending(self) -> int:
        return self._jobs.qsize()


class TaskRunner(QObject):
    """`submit(job, done)`: `job` runs on the runner's thread, `done(result, error)` on
    the GUI thread. Results of jobs finishing after `stop()` are dropped."""

    # Only the token crosses threads in the signal: PySide6 on Python 3.11 miscounts
    # references of None sent through `object` signal arguments (a fatal error at exit).
    _finished = Signal(int)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._callbacks: dict[int, Done] = {}
        self._results: dict[int, tuple[Any, BaseException | None]] = {}
        self._results_lock = threading.Lock()
        self._tokens = itertools.count(1)
        self._thread = _JobThread(name, self._report)
        self._finished.connect(self._deliver)
        self._stopped = False

    def submit(self, job: Job, done: Done) -> None:
        if self._stopped:
            return
        token = next(self._tokens)
        self._callbacks[token] = done
        self._thread.start()  # lazily, and a no-op when running
        self._thread.put(token, job)

    def _report(self, token: int, result: Any, error: BaseException | None) -> None:
        with self._results_lock:
            self._results[token] = (result, error)
        self._finished.emit(token)

    def _deliver(self, token: int) -> None:
        with self._results_lock:
            result, error = self._results.pop(token, (None, None))
        done = self._callbacks.pop(token, None)
        if done is None or self._stopped:
            return
        try:
            done(result, error)
        except Exception:
            log.exception("task callback failed")

    @property
    def busy(self) -> bool:
        return bool(self._callbacks)

    @property
    def worker(self) -> Worker:
        return self._thread

    def stop(self, timeout: float = 0.5) -> bool:
        """Drop the results still to come and join the thread (at shutdown)."""
        self._stopped = True
        self._callbacks.clear()
        return self._thread.stop(timeout)

    def cancel(self) -> None:
        """Drop the results still to come and let the thread end by itself, without
        waiting for it (a dialog closing while the app runs: the GUI thread never joins)."""
        self._stopped = True
        self._callbacks.clear()
        self._thread.request_stop()
