"""Where a frame's faces come from: the tracks followed from the last frame's landmarks,
or the detector. The one home of that decision, and the only code that runs the
detector into the tracker.

The detector stage asks `find` at the start of every frame: detect here (no face
tracked, a track lost, the periodic refresh offline), start the periodic refresh on the
background thread (live frames while every face is tracked), or only track. The
landmarker asks `search_again` when every tracked face slipped out of its crop in this
frame (a jump, a cut) and nothing searched it yet, rather than showing the unswapped
face for a frame. Both stages hold the one `FaceFinder`; it owns the `FaceTracker`
whose tracks the landmarker meshes, updates and drops.
"""

from __future__ import annotations

from typing import Literal

from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import EngineSettings
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer
from engine.face.background import BackgroundDetector, DetectionJob
from engine.face.records import Detection, Face
from engine.face.tracker import FaceTracker

# Why the detector did not search this frame: the faces came from the tracks, or the
# periodic refresh went to the background thread.
NotSearched = Literal["tracking", "background"]
# The profile key of the refresh's time (`background/detector`): it is the detector
# stage's work, done on another thread.
BACKGROUND_STEP = "detector"


class FaceFinder:
    def __init__(self) -> None:
        self.tracker = FaceTracker()
        self._background: BackgroundDetector | None = None  # made on the first frame

    @property
    def refreshing(self) -> bool:
        """A detection started by a live frame is still running in the background."""
        return self._background is not None and self._background.busy

    def reset(self) -> None:
        """No picture this frame: every track ends."""
        self.tracker.reset()

    def stop(self, timeout: float = 2.0) -> None:
        if self._background is not None:
            self._background.stop(timeout)

    def find(
        self,
        analyzer: FaceAnalyzer,
        frame: Frame,
        settings: EngineSettings,
        *,
        live: bool,
        steps: StepTimer = NO_STEPS,
    ) -> NotSearched | None:
        """Start a frame: take a finished background refresh, then detect here (None)
        or say why not. Live frames may hand the periodic refresh to the background;
        offline ones never do, so the same input always gives the same output."""
        if self._background is None:
            self._background = BackgroundDetector(analyzer)
        tracker = self.tracker
        tracker.begin_frame()
        self._take_background(frame, settings, steps)
        if not tracker.needs_detection(settings.detection):
            return "tracking"
        if live and tracker.tracking and self._start_background(frame, settings):
            return "background"
        with steps.step("detect"):
            detections = analyzer.detect(frame, settings.detection, steps)
        with steps.step("match"):
            self._add(detections, frame, settings)
        return None

    def faces(self, *, detected: bool) -> list[Face]:
        """The tracked faces, each with the box that found it when the detector ran this
        frame (between runs a box would be a stale one)."""
        return [Face(t.track_id, t.detection if detected else None) for t in self.tracker.tracks]

    def lost_all(self, kept: list[Face], detector_ran: bool) -> bool:
        """Every tracked face was lost in this frame and nothing searched it yet."""
        return not kept and not self.tracker.tracks and not detector_ran

    def search_again(
        self,
        analyzer: FaceAnalyzer,
        frame: Frame,
        settings: EngineSettings,
        steps: StepTimer = NO_STEPS,
    ) -> list[Face]:
        """Detect in this frame after every track was lost; the faces it found."""
        detections = analyzer.detect(frame, settings.detection, steps)
        self._add(detections, frame, settings)
        return self.faces(detected=True)

    def _add(self, detections: list[Detection], frame: Frame, settings: EngineSettings) -> None:
        size = (frame.shape[1], frame.shape[0])
        self.tracker.add_detections(detections, size, settings.detection, settings.tracking)

    def _start_background(self, frame: Frame, settings: EngineSettings) -> bool:
        job = DetectionJob(frame, settings.detection, self.tracker.epoch)
        assert self._background is not None  # made before any frame is detected on
        if not self._background.submit(job):
            return False  # the last one is still running: detect here, as offline
        self.tracker.refresh_started()
        return True

    def _take_background(self, frame: Frame, settings: EngineSettings, steps: StepTimer) -> None:
        """Faces a finished background detection found, unless the tracks changed since
        it started (a detection here, a reset), the frame size or the settings did."""
        assert self._background is not None
        result = self._background.take()
        if result is None:
            return
        steps.add_background(BACKGROUND_STEP, result.elapsed_ms, result.cpu_ms)
        job = result.job
        if (
            job.epoch == self.tracker.epoch
            and job.settings == settings.detection
            and job.frame.shape == frame.shape
        ):
            self._add(result.value, job.frame, settings)
