"""Detector stage: runs BlazeFace only when tracking needs it, and lists the faces to mesh."""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.face.analyzer import FaceAnalyzer, usable_frame
from engine.face.records import Face
from engine.face.tracker import FaceTracker
from engine.stages.base import Stage


class DetectStage(Stage):
    name: ClassVar[str] = "detector"

    def __init__(self, analyzer: FaceAnalyzer, tracker: FaceTracker) -> None:
        self.analyzer = analyzer
        self.tracker = tracker

    def providers(self) -> tuple[str, ...]:
        return self.analyzer.providers

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        frame = packet.frame
        if not usable_frame(frame):
            self.tracker.reset()
            packet.faces = []
            packet.skip(self.name, "no image")
            return packet
        self.tracker.begin_frame()
        detected = False
        if self.tracker.needs_detection(settings.detection):
            with packet.step("detect"):
                detections = self.analyzer.detect(frame, settings.detection)
            with packet.step("match"):
                self.tracker.add_detections(
                    detections,
                    (frame.shape[1], frame.shape[0]),
                    settings.detection,
                    settings.tracking,
                )
            detected = True
        else:
            # The faces come from the last frame's landmarks: the detector did not run.
            packet.skip(self.name, "tracking")
        packet.info["detector_ran"] = detected
        # Between detector runs a face has no detection: its box would be a stale one.
        packet.faces = [
            Face(t.track_id, t.detection if detected else None) for t in self.tracker.tracks
        ]
        return packet
