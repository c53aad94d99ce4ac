"""The detector's periodic refresh, run off the engine thread while the faces are tracked.

While every face is tracked, the detector runs only to find faces that entered the
picture (every `redetect_every` frames). That pass does not change the frame it runs on,
yet it cost that frame ~9 ms of its 50 ms budget (the full-range model at 1280×720 on a
2-core CPU) and delayed the next frame too. Here it runs on its own thread, on one frame
at a time, and the tracker takes its result at the start of a later frame. When no face
is tracked, or a track was just lost, detection stays on the engine thread: that frame
needs it.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from engine.core.settings import DetectionSettings
from engine.core.slots import LatestSlot
from engine.core.threads import ErrorCallback, Worker
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer
from engine.face.records import Detection

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DetectionJob:
    frame: Frame  # read-only: frames are never written once captured
    settings: DetectionSettings
    epoch: int  # the tracker's epoch when it started; a later detection makes it stale


@dataclass(frozen=True, slots=True)
class DetectionResult:
    job: DetectionJob
    detections: list[Detection]
    elapsed_ms: float
    cpu_ms: float  # this thread's CPU time for it


class BackgroundDetector(Worker):
    """One detection in flight at most; `submit` refuses while one is running or its
    result has not been taken."""

    def __init__(self, analyzer: FaceAnalyzer, on_error: ErrorCallback | None = None) -> None:
        super().__init__("detector-refresh", on_error)
        self._analyzer = analyzer
        self._jobs: LatestSlot[DetectionJob] = LatestSlot()
        self._lock = threading.Lock()
        self._busy = False
        self._result: DetectionResult | None = None

    def submit(self, job: DetectionJob) -> bool:
        with self._lock:
            if self._busy or self._result is not None:
                return False
            self._busy = True
        self.start()  # no-op while running
        self._jobs.put(job)
        return True

    def take(self) -> DetectionResult | None:
        """The finished detection, once; None while none has finished."""
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
                found = self._analyzer.detect(job.frame, job.settings)
            except Exception:
                # The faces stay tracked; the next refresh tries again. Logged, not raised:
                # no frame waits on this pass.
                log.exception("background face detection failed")
                found = None
            elapsed_ms = (time.perf_counter_ns() - t0) / 1e6
            cpu_ms = (time.thread_time_ns() - c0) / 1e6
            with self._lock:
                self._busy = False
                if found is not None:
                    self._result = DetectionResult(job, found, elapsed_ms, cpu_ms)
