"""Face stage: finds the frame's faces (detect or track) and meshes each one.

One stage rather than a detector and a landmarker: what a frame's mesh decides (a face
slipped out of its crop, every track lost) changes where the next detection looks and
whether this frame must search again, so the two halves share the cross-frame face
state (engine/face/finder.py). Held by one stage, that state never travels between
stages outside the packet. Its parts stay apart in the profile (`fusecam bench
--profile`): "detect" and "match" (the detector, when it runs in this frame), "mesh"
(each face, twice on a track's first frame), "track" (the track takes the mesh,
smoothed), "eyes" (the iris model) and "redetect" (the search again after every track
was lost); the live periodic refresh is "background/detect".
"""

from __future__ import annotations

from typing import ClassVar

from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.face.analyzer import FaceAnalyzer, usable_frame
from engine.face.finder import FaceFinder
from engine.face.roi import roi_from_landmarks
from engine.stages.base import Stage
from engine.stages.face_models import FaceModels


class FaceStage(Stage):
    """Whether this frame detects or tracks is the `FaceFinder`'s: live, the periodic
    refresh while every face is tracked runs on a background thread and its faces join
    a frame or two later; offline it runs in place, so that the same input always gives
    the same output. Until the face models have loaded (stages/face_models.py) a live
    frame passes through, "loading"."""

    # Like "hands": the stage that finds them, follows them and marks their landmarks.
    name: ClassVar[str] = "faces"

    def __init__(self, models: FaceModels) -> None:
        """`models` may still be loading. This stage owns their loader thread and the
        finder's background refresh: `prepare` waits for the models, `close` joins both."""
        self.models = models
        self.finder = FaceFinder()  # read by tests and tools; only this stage drives it

    def prepare(self, settings: EngineSettings) -> None:
        self.models.wait(settings)

    def providers(self) -> tuple[str, ...]:
        return self.models.providers()

    def close(self, timeout: float = 2.0) -> None:
        self.models.stop(timeout)
        self.finder.stop(timeout)

    @property
    def refreshing(self) -> bool:
        """A detection started by a live frame is still running in the background."""
        return self.finder.refreshing

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        frame = packet.frame
        if not usable_frame(frame):
            self.finder.reset()
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
        searched = self.finder.find(analyzer, frame, settings, live=packet.live, steps=packet.steps)
        kept = self._mesh(packet, analyzer, self.finder.faces(detected=searched), settings)
        if self.finder.lost_all(kept, searched=searched):
            # Every tracked face slipped out of its crop (a jump, a cut): look for them
            # again in this frame rather than show the unswapped face for a frame.
            with packet.step("redetect"):
                fresh = self.finder.search_again(analyzer, frame, settings, packet.steps)
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
        """The faces whose mesh was found where the finder said to look, each with its
        landmarks (smoothed), eyes and presence; the finder keeps or ends their tracks."""
        t_s = packet.capture_ns / 1e9
        threshold = settings.tracking.presence_threshold
        kept: list[Face] = []
        for face in faces:
            crop = self.finder.crop(face)
            if crop is None:
                continue
            with packet.step("mesh"):
                result = analyzer.mesh.run(packet.frame, crop.roi, packet.steps)
                if crop.first and result.presence >= threshold:
                    # First frame of a track: a second pass around the mesh itself, so
                    # the face starts as well cropped as a tracked one.
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
