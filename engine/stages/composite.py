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
        done: list[tuple[int, int, int, int]] = []
        for patch in patches:
            box = patch.rect
            untouched = not any(_overlap(box, other) for other in done)
            composite(out, patch, settings.compositor, packet.steps, untouched)
            done.append(box)
        packet.output = out
        return packet


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
