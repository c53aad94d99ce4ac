"""Detector stage: runs BlazeFace only when tracking needs it, and lists the faces to mesh."""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer, usable_frame
from engine.face.background import BackgroundDetector, DetectionJob
from engine.face.records import Detection, Face
from engine.face.tracker import FaceTracker
from engine.stages.base import Stage


class DetectStage(Stage):
    """Live, the periodic refresh while every face is tracked runs on a background thread
    (engine/face/background.py) and its faces join a frame or two later; offline it runs
    in place, so that the same input always gives the same output."""

    name: ClassVar[str] = "detector"

    def __init__(self, analyzer: FaceAnalyzer, tracker: FaceTracker) -> None:
        self.analyzer = analyzer
        self.tracker = tracker
        self._background = BackgroundDetector(analyzer)

    def providers(self) -> tuple[str, ...]:
        return self.analyzer.providers

    def close(self, timeout: float = 2.0) -> None:
        self._background.stop(timeout)

    @property
    def refreshing(self) -> bool:
        """A detection started by a live frame is still running in the background."""
        return self._background.busy

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        frame = packet.frame
        if not usable_frame(frame):
            self.tracker.reset()
            packet.faces = []
            packet.skip(self.name, "no image")
            return packet
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
                detections = self.analyzer.detect(frame, settings.detection, packet.steps)
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
        if not self._background.submit(job):
            return False  # the last one is still running: detect here, as offline
        self.tracker.refresh_started()
        return True

    def _take_background(self, packet: FramePacket, settings: EngineSettings) -> None:
        """Faces a finished background detection found, unless the tracks changed since
        it started (a detection here, a reset), the frame size or the settings did."""
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
