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

from dataclasses import dataclass

from engine.core.background import BackgroundJob
from engine.core.face_records import Detection
from engine.core.settings import DetectionSettings
from engine.core.threads import ErrorCallback
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer


@dataclass(frozen=True, slots=True)
class DetectionJob:
    frame: Frame  # read-only: frames are never written once captured
    settings: DetectionSettings
    epoch: int  # the tracker's epoch when it started; a later detection makes it stale


class BackgroundDetector(BackgroundJob[DetectionJob, list[Detection]]):
    """One detection in flight at most. One that fails is logged: the faces stay
    tracked and the next refresh tries again."""

    def __init__(self, analyzer: FaceAnalyzer, on_error: ErrorCallback | None = None) -> None:
        super().__init__(
            "detector-refresh", lambda job: analyzer.detect(job.frame, job.settings), on_error
        )
