"""One job at a time on a worker thread: work a live frame starts but need not wait for.

The detector's periodic refresh (engine/face/background.py) and the swapper's detail
re-measure (engine/stages/swap.py) run here: neither changes the frame that starts it,
so its result can join a frame or two later instead of lengthening this one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.core.slots import LatestSlot
from engine.core.threads import ErrorCallback, Worker

log = logging.getLogger(__name__)

J = TypeVar("J")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Finished(Generic[J, R]):
    job: J
    value: R
    elapsed_ms: float
    cpu_ms: float  # the worker thread's CPU time for it


class BackgroundJob(Worker, Generic[J, R]):
    """Runs `work(job)` on its own thread, one job in flight at most: `submit` refuses
    while one is running or its result has not been taken. A job that raises is logged
    and gives no result (the caller carries on with what it had and may try again)."""

    def __init__(
        self, name: str, work: Callable[[J], R], on_error: ErrorCallback | None = None
    ) -> None:
        super().__init__(name, on_error)
        self._work = work
        self._jobs: LatestSlot[J] = LatestSlot()
        self._lock = threading.Lock()
        self._busy = False
        self._result: Finished[J, R] | None = None

    def submit(self, job: J) -> bool:
        with self._lock:
            if self._busy or self._result is not None:
                return False
            self._busy = True
        self.start()  # no-op while running
        self._jobs.put(job)
        return True

    def take(self) -> Finished[J, R] | None:
        """The finished job, once; None while none has finished."""
        with self._lock:
            result, self._result = self._result, None
            return result

    @property
    def busy(self) -> bool:
        return self._busy

    def start(self) -> None:
        if not self.alive:
            self._jobs.reopen()  # stop() closed it
        super().start()

    def _on_stop(self) -> None:
        self._jobs.close()

    def _run(self) -> None:
        while not self.stopping:
            job = self._jobs.get(timeout=0.1)
            if job is None:
                continue
            t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
            try:
                done: tuple[R] | None = (self._work(job),)
            except Exception:
                # Logged, not raised: no frame waits on this job.
                log.exception("%s failed", self.name)
                done = None
            elapsed_ms = (time.perf_counter_ns() - t0) / 1e6
            cpu_ms = (time.thread_time_ns() - c0) / 1e6
            with self._lock:
                self._busy = False
                if done is not None:
                    self._result = Finished(job, done[0], elapsed_ms, cpu_ms)
