"""A stage that changes nothing: the pipeline's stand-in when no face stage is wanted."""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.stages.base import Stage


class PassThrough(Stage):
    name: ClassVar[str] = "passthrough"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        return packet
