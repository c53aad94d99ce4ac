"""A stage that changes nothing: the engine, session and output tests' stand-in for the
face stages. (The desktop app starts its session with no stages at all, so it is a test
helper, not part of the engine.)"""

from __future__ import annotations

from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.stages.base import Stage


class PassThrough(Stage):
    name: ClassVar[str] = "passthrough"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        return packet
