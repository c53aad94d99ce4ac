"""Compositor stage: blends every face's patch back into the frame (engine/render/composite.py)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.render.composite import composite
from engine.stages.base import Stage


class CompositeStage(Stage):
    name: ClassVar[str] = "compositor"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        packet.composited = True
        patches = [f.patch for f in packet.faces if f.patch is not None]
        if not patches:
            packet.skip(self.name, "no face")
            return packet
        with packet.step("copy"):
            out = np.array(packet.frame, copy=True)
        for patch in patches:
            composite(out, patch, settings.compositor, packet.steps)
        packet.output = out
        return packet
