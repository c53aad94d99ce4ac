"""Built-in enhancer stage: sharpening and camera grain on each swapped face
(engine/render/detail.py), adapted to the packet.

It trades time for quality (two blurs and a noise field per face) and runs only when
`settings.enhancer.mode` asks for it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.render.detail import sharpen_and_grain
from engine.stages.base import Stage


class BuiltinEnhanceStage(Stage):
    name: ClassVar[str] = "builtin_enhancer"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        strength = settings.enhancer.strength
        if strength <= 0.0:
            return packet
        rng = np.random.default_rng(packet.frame_id)  # grain changes every frame, like a camera's
        for face in packet.faces:
            if face.patch is not None:
                sharpen_and_grain(packet.frame, face.patch, strength, rng, packet.steps)
        return packet
