"""Landmarker stage: 468-point mesh per tracked face, crop from the previous landmarks."""

from __future__ import annotations

from typing import ClassVar

from engine.face.analyzer import FaceAnalyzer
from engine.face.roi import roi_from_detection, roi_from_landmarks
from engine.face.tracker import FaceTracker
from engine.packet import FramePacket
from engine.settings import EngineSettings


class LandmarkStage:
    name: ClassVar[str] = "landmarker"

    def __init__(self, analyzer: FaceAnalyzer, tracker: FaceTracker) -> None:
        self.mesh = analyzer.mesh
        self.tracker = tracker
        self.providers = analyzer.providers

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if not packet.faces:
            return packet
        t_s = packet.capture_ns / 1e9
        threshold = settings.tracking.presence_threshold
        by_id = {t.track_id: t for t in self.tracker.tracks}
        kept = []
        for face in packet.faces:
            track = by_id.get(face.track_id)
            if track is None:
                continue
            fresh = track.landmarks is None
            roi = (
                roi_from_detection(track.detection)
                if fresh and track.detection
                else (self.tracker.predicted_roi(track))
            )
            result = self.mesh.run(packet.frame, roi)
            if fresh and result.presence >= threshold:
                # First frame of a track: a second pass around the mesh itself, so the
                # face starts as well cropped as a tracked one.
                result = self.mesh.run(packet.frame, roi_from_landmarks(result.landmarks))
            if result.presence < threshold:
                self.tracker.drop(track)
                continue
            face.landmarks = self.tracker.update(
                track, result.landmarks, result.presence, t_s, settings.tracking
            )
            face.presence = result.presence
            kept.append(face)
        packet.faces = kept
        return packet
