"""Debug overlay stage: face boxes, the mesh and pose axes drawn over the output
(engine/render/debug_draw.py)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.render.debug_draw import draw_faces, mesh_edges
from engine.stages.base import Stage


class OverlayStage(Stage):
    name: ClassVar[str] = "overlay"

    def __init__(self) -> None:
        self._edges = mesh_edges()

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if not settings.output.debug_overlay or not packet.faces:
            packet.skip(self.name, "off" if not settings.output.debug_overlay else "no face")
            return packet
        with packet.step("copy"):
            out = np.array(packet.result, copy=True)
        with packet.step("draw"):
            draw_faces(out, packet.faces, self._edges)
        packet.output = out
        return packet
