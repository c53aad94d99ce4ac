"""Landmarker stage: 468-point mesh per tracked face, crop from the previous landmarks."""

from __future__ import annotations

from typing import ClassVar

from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.face.analyzer import FaceAnalyzer
from engine.face.finder import FaceFinder
from engine.face.roi import roi_from_landmarks
from engine.stages.base import Stage
from engine.stages.face_models import FaceModels


class LandmarkStage(Stage):
    name: ClassVar[str] = "landmarker"

    def __init__(self, models: FaceModels, finder: FaceFinder) -> None:
        """`models` and `finder`: the detector's (it loads the models, so a face reaches
        this stage only once they are in). The finder says where to mesh each face the
        detector put in the packet and takes the mesh back (engine/face/finder.py)."""
        self.models = models
        self.finder = finder

    def providers(self) -> tuple[str, ...]:
        return self.models.providers()

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if not packet.faces:
            packet.skip(self.name, "no face")
            return packet
        analyzer = self.models.get(packet, settings)
        if isinstance(analyzer, str):
            packet.skip(self.name, analyzer)
            return packet
        kept = self._mesh(packet, analyzer, packet.faces, settings)
        if self.finder.lost_all(kept, packet.detector_ran):
            # Every tracked face slipped out of its crop (a jump, a cut): the finder
            # looks for them again in this frame.
            with packet.step("redetect"):
                fresh = self.finder.search_again(analyzer, packet.frame, settings, packet.steps)
            packet.detector_ran = True
            kept = self._mesh(packet, analyzer, fresh, settings)
        packet.faces = kept
        return packet

    def refines_eyes(self, kept: list[Face], settings: EngineSettings) -> bool:
        """Whether the next face kept gets its eyes refined: "main" swaps only the first
        face kept (engine/swap/assign.py), and the iris model (~4 ms CPU a face) would
        refine the others' for nothing."""
        return not kept or settings.swap.face_selection != "main"

    def _mesh(
        self,
        packet: FramePacket,
        analyzer: FaceAnalyzer,
        faces: list[Face],
        settings: EngineSettings,
    ) -> list[Face]:
        t_s = packet.capture_ns / 1e9
        threshold = settings.tracking.presence_threshold
        kept: list[Face] = []
        for face in faces:
            crop = self.finder.crop(face)
            if crop is None:
                continue
            result = analyzer.mesh.run(packet.frame, crop.roi, packet.steps)
            if crop.first and result.presence >= threshold:
                # First frame of a track: a second pass around the mesh itself, so the
                # face starts as well cropped as a tracked one.
                roi = roi_from_landmarks(result.landmarks)
                result = analyzer.mesh.run(packet.frame, roi, packet.steps)
            if result.presence < threshold:
                self.finder.lose(face)
                continue
            with packet.step("track"):
                smoothed = self.finder.follow(
                    face, result.landmarks, result.presence, t_s, settings
                )
            # The eyes refined on every frame, after smoothing: a blink is over in a
            # few frames, and smoothed it would barely show.
            if not self.refines_eyes(kept, settings):
                face.landmarks, face.irises = smoothed, None
            else:
                with packet.step("eyes"):
                    face.landmarks, face.irises = analyzer.refine_eyes(
                        packet.frame, smoothed, packet.steps
                    )
            face.presence = result.presence
            kept.append(face)
        return kept
