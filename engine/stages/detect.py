"""Detector stage: runs BlazeFace only when tracking needs it, and lists the faces to mesh."""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.face.analyzer import usable_frame
from engine.face.finder import FaceFinder
from engine.stages.base import Stage
from engine.stages.face_models import FaceModels


class DetectStage(Stage):
    """Whether this frame detects or tracks is the `FaceFinder`'s (engine/face/finder.py):
    live, the periodic refresh while every face is tracked runs on a background thread
    and its faces join a frame or two later; offline it runs in place, so that the same
    input always gives the same output. Until the face models have loaded
    (stages/face_models.py) a live frame passes through, "loading"."""

    name: ClassVar[str] = "detector"

    def __init__(self, models: FaceModels, finder: FaceFinder) -> None:
        """`models` and `finder` are shared with the landmarker; the models may still be
        loading. This stage owns their threads: `prepare` waits for the models' loader,
        `close` joins it and the finder's background refresh."""
        self.models = models
        self.finder = finder

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
        not_searched = self.finder.find(
            analyzer, frame, settings, live=packet.live, steps=packet.steps
        )
        if not_searched is not None:
            packet.skip(self.name, not_searched)
        packet.detector_ran = not_searched is None
        packet.faces = self.finder.faces(detected=packet.detector_ran)
        return packet
