"""Fitter stage: pose, identity, expression and (fitted when read) lighting for every meshed
face."""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.face.fit import FaceFitter
from engine.stages.base import Stage


class FitStage(Stage):
    name: ClassVar[str] = "fitter"

    def __init__(self, fitter: FaceFitter | None = None) -> None:
        self.fitter = fitter or FaceFitter()

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        meshed = [(face, face.landmarks) for face in packet.faces if face.landmarks is not None]
        if not meshed:
            packet.skip(self.name, "no face")
        for face, landmarks in meshed:
            face.fit = self.fitter.fit(packet.frame, landmarks, packet.steps)
        return packet
