"""The neural enhancer stage: GFPGAN-style restoration of each swapped face
(engine/neural/restore_paste.py), adapted to the packet."""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket, NeuralRun
from engine.core.settings import EngineSettings
from engine.models.store import ModelStore
from engine.neural.loading import RestorerModel, load_restorer
from engine.neural.restore_paste import restore_face
from engine.stages.base import Stage


class NeuralEnhanceStage(Stage):
    name: ClassVar[str] = "neural_enhancer"

    def __init__(self, model: RestorerModel) -> None:
        self.model = model

    def providers(self) -> tuple[str, ...]:
        return self.model.restorer.providers

    @classmethod
    def from_settings(
        cls, settings: EngineSettings, store: ModelStore | None = None
    ) -> NeuralEnhanceStage:
        return cls(load_restorer(store or ModelStore(), settings.models))

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if settings.enhancer.mode != "neural":
            return packet
        restorer, strength = self.model.restorer, settings.enhancer.strength
        enhanced = sum(
            restore_face(restorer, packet.frame, face, strength, packet.steps)
            for face in packet.faces
        )
        packet.neural_enhance = NeuralRun(
            self.model.label, enhanced, user_supplied=self.model.user_supplied
        )
        return packet
