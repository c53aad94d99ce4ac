"""Which swapper a gallery preview shows: the one the stream uses. When the swapper
selector ran a loaded neural swapper on the last frame, the preview is that model's
swap (the built-in swapper's own controls — face shape, likeness, eyes — are disabled
then and must not change it); otherwise the built-in render (engine/swap/preview.py).

The neural model is the stage's own (`NeuralFaceSwapper` is thread-safe: onnxruntime
sessions and read-only data); the source latents are cached here, not shared with the
stage, whose cache belongs to the engine thread.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.types import F32, Frame
from engine.render.composite import composite
from engine.stages.base import Stage
from engine.stages.neural_swap import NeuralSwapStage
from engine.stages.select import SwapperSelector
from engine.swap.preview import FacePreviewer, preview_box, preview_face, scaled, thumbnail

PreviewKind = Literal["builtin", "neural"]
_LATENTS = 16  # source latents kept (one per gallery face and model pair)


class SwapperPreview:
    """A `MiniPreviewRenderer` renderer; `stages` gives the engine's current stages."""

    def __init__(self, stages: Callable[[], Sequence[Stage]]) -> None:
        self._stages = stages
        self._builtin = FacePreviewer()
        self._latents: OrderedDict[tuple[str, str], F32 | None] = OrderedDict()
        self.last_kind: PreviewKind | None = None  # what the last preview showed

    def neural_stage(self, settings: EngineSettings) -> NeuralSwapStage | None:
        """The neural swapper the stream uses now, if any."""
        if settings.swap.swapper == "builtin":
            return None
        for stage in self._stages():
            if isinstance(stage, SwapperSelector) and isinstance(stage.active, NeuralSwapStage):
                return stage.active
        return None

    def render(
        self,
        packet: FramePacket,
        key: str,
        library: Any,
        settings: EngineSettings,
        max_side: int = 160,
    ) -> Frame:
        neural = self.neural_stage(settings)
        if neural is None:
            self.last_kind = "builtin"
            return self._builtin.render(packet, key, library, settings, max_side)
        self.last_kind = "neural"
        return self._render_neural(neural, packet, key, library, settings, max_side)

    def _render_neural(
        self,
        stage: NeuralSwapStage,
        packet: FramePacket,
        key: str,
        library: Any,
        settings: EngineSettings,
        max_side: int,
    ) -> Frame:
        """The main face swapped by the model as the stream would swap it (the user's
        identity mix, mouth kept or not), blended in, cropped to a thumbnail."""
        frame, face = packet.frame, preview_face(packet)
        latent = self._latent(stage, key, library)
        box = (
            None
            if face is None or face.landmarks is None
            else preview_box(face.landmarks, frame.shape)
        )
        if face is None or latent is None or box is None:
            return scaled(frame, max_side)
        swap = settings.swap
        patch = stage.swapper.swap_face(
            frame, face, latent, swap.latent_blend, keep_mouth=swap.keep_mouth_interior
        )
        if patch is None:
            return thumbnail(frame, box, max_side)
        out = np.array(frame, copy=True)
        composite(out, patch, settings.compositor)
        return thumbnail(out, box, max_side)

    def _latent(self, stage: NeuralSwapStage, key: str, library: Any) -> F32 | None:
        cache_key = (key, stage.models.key)
        if cache_key not in self._latents:
            photos = library.get(key)
            self._latents[cache_key] = (
                None if photos is None else stage.swapper.source_latent(photos)
            )
            while len(self._latents) > _LATENTS:
                self._latents.popitem(last=False)
        return self._latents[cache_key]
