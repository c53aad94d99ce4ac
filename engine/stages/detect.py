"""Detector stage: runs BlazeFace only when tracking needs it, and lists the faces to mesh."""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.types import Frame
from engine.face.analyzer import usable_frame
from engine.face.background import BackgroundDetector, DetectionJob
from engine.face.records import Detection, Face
from engine.face.tracker import FaceTracker
from engine.stages.base import Stage
from engine.stages.face_models import FaceModels


class DetectStage(Stage):
    """Live, the periodic refresh while every face is tracked runs on a background thread
    (engine/face/background.py) and its faces join a frame or two later; offline it runs
    in place, so that the same input always gives the same output. Until the face
    models have loaded (stages/face_models.py) a live frame passes through, "loading"."""

    name: ClassVar[str] = "detector"

    def __init__(self, models: FaceModels, tracker: FaceTracker) -> None:
        """`models` (shared with the landmarker) may still be loading; this stage owns
        their loader: `prepare` waits for it, `close` joins it."""
        self.models = models
        self.tracker = tracker
        self._background: BackgroundDetector | None = None  # made once the models are in

    def prepare(self, settings: EngineSettings) -> None:
        self.models.wait(settings)

    def providers(self) -> tuple[str, ...]:
        return self.models.providers()

    def close(self, timeout: float = 2.0) -> None:
        self.models.stop(timeout)
        if self._background is not None:
            self._background.stop(timeout)

    @property
    def refreshing(self) -> bool:
        """A detection started by a live frame is still running in the background."""
        return self._background is not None and self._background.busy

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        frame = packet.frame
        if not usable_frame(frame):
            self.tracker.reset()
            packet.faces = []
            packet.skip(self.name, "no image")
            return packet
        analyzer = self.models.get(packet, settings)
        if isinstance(analyzer, str):
            # A live frame while the face models load: it passes through unprocessed.
            packet.faces = []
            packet.face_models_loading = True
            packet.skip(self.name, analyzer)
            return packet
        if self._background is None:
            self._background = BackgroundDetector(analyzer)
        self.tracker.begin_frame()
        self._take_background(packet, settings)
        detected = False
        if not self.tracker.needs_detection(settings.detection):
            # The faces come from the last frame's landmarks: the detector did not run.
            packet.skip(self.name, "tracking")
        elif packet.live and self.tracker.tracking and self._start_background(packet, settings):
            packet.skip(self.name, "background")
        else:
            with packet.step("detect"):
                detections = analyzer.detect(frame, settings.detection, packet.steps)
            with packet.step("match"):
                self._add(detections, frame, settings)
            detected = True
        packet.detector_ran = detected
        # Between detector runs a face has no detection: its box would be a stale one.
        packet.faces = [
            Face(t.track_id, t.detection if detected else None) for t in self.tracker.tracks
        ]
        return packet

    def _add(self, detections: list[Detection], frame: Frame, settings: EngineSettings) -> None:
        size = (frame.shape[1], frame.shape[0])
        self.tracker.add_detections(detections, size, settings.detection, settings.tracking)

    def _start_background(self, packet: FramePacket, settings: EngineSettings) -> bool:
        job = DetectionJob(packet.frame, settings.detection, self.tracker.epoch)
        assert self._background is not None  # made before any frame is detected on
        if not self._background.submit(job):
            return False  # the last one is still running: detect here, as offline
        self.tracker.refresh_started()
        return True

    def _take_background(self, packet: FramePacket, settings: EngineSettings) -> None:
        """Faces a finished background detection found, unless the tracks changed since
        it started (a detection here, a reset), the frame size or the settings did."""
        assert self._background is not None
        result = self._background.take()
        if result is None:
            return
        packet.steps.add_background(self.name, result.elapsed_ms, result.cpu_ms)
        job = result.job
        if (
            job.epoch == self.tracker.epoch
            and job.settings == settings.detection
            and job.frame.shape == packet.frame.shape
        ):
            self._add(result.value, job.frame, settings)
