"""The stage contract every processing step follows (DESIGN.md, "Stages")."""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings


@runtime_checkable
class Stage(Protocol):
    name: ClassVar[str]

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket: ...
