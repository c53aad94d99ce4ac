"""The neural swapper stage (inswapper-style), behind the same contract as the built-in one.

It adapts engine/neural/face_swap.py to the packet: for each face to swap, the source's
identity latent (cached per source and model pair) and a FacePatch left on the face.
This stage never writes `packet.output`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import ClassVar, Protocol

from engine.core.packet import FramePacket, NeuralRun
from engine.core.settings import EngineSettings
from engine.core.types import F32
from engine.models.store import ModelStore
from engine.neural.face_swap import NeuralFaceSwapper, SourcePhotos
from engine.neural.loading import SwapModels, load_swap_models
from engine.stages.base import Stage
from engine.swap.assign import assign_sources


class SourceLookup(Protocol):
    def get(self, key: str) -> SourcePhotos | None: ...


class NeuralSwapStage(Stage):
    name: ClassVar[str] = "neural_swapper"

    def __init__(self, models: SwapModels, library: SourceLookup, *, cache_size: int = 16) -> None:
        self.models = models
        self.swapper = NeuralFaceSwapper(models)
        self.library = library
        self._latents: OrderedDict[tuple[str, str], F32] = OrderedDict()
        self._cache_size = cache_size

    @classmethod
    def from_settings(
        cls, settings: EngineSettings, library: SourceLookup, store: ModelStore | None = None
    ) -> NeuralSwapStage:
        """Raises ModelMissingError / ModelCorruptError (names the model and the fix)."""
        return cls(load_swap_models(store or ModelStore(), settings.models), library)

    def source_latent(self, key: str) -> F32 | None:
        """The swapper latent of source `key` (cached), or None when it has no usable photo."""
        cache_key = (key, self.models.key)
        if cache_key in self._latents:  # engine thread only: no lock
            self._latents.move_to_end(cache_key)
            return self._latents[cache_key]
        try:
            photos = self.library.get(key)
        except KeyError:
            photos = None
        latent = None if photos is None else self.swapper.source_latent(photos)
        if latent is None:
            return None
        self._latents[cache_key] = latent
        while len(self._latents) > self._cache_size:
            self._latents.popitem(last=False)
        return latent

    def providers(self) -> tuple[str, ...]:
        return tuple(
            dict.fromkeys((*self.models.swapper.providers, *self.models.embedder.providers))
        )

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        swap = settings.swap  # "swap off" is the selector's (engine/stages/select.py)
        swapped = 0
        missing: list[str] = []
        for face, key in assign_sources(packet.faces, swap):
            latent = self.source_latent(key)
            if latent is None:
                missing.append(key)
                continue
            patch = self.swapper.swap_face(
                packet.frame,
                face,
                latent,
                swap.latent_blend,
                keep_mouth=swap.keep_mouth_interior,
                steps=packet.steps,
            )
            if patch is not None:
                face.patch = patch
                swapped += 1
        packet.neural_swap = NeuralRun(
            self.models.swapper_spec.name, swapped, missing_sources=tuple(missing)
        )
        return packet
