"""The neural swapper stage (inswapper-style), behind the same contract as the built-in one.

For each face to swap: align a crop to the ArcFace template from the mesh's 5 points, run
the swapper with the source identity latent (blended with the target's own by alpha), and
leave a FacePatch on the face. Compositing (masks, mouth, colour) is the compositor's job;
this stage never writes `packet.output`.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import ClassVar, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.packet import FramePacket
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import EngineSettings
from engine.core.types import F32, Frame
from engine.face.mesh import topology
from engine.face.records import Face, FacePatch
from engine.models.store import ModelStore
from engine.neural.align import (
    back_region,
    five_points_from_mesh,
    shrunk_crop_mask,
    similarity_transform,
    warp_back,
    warp_crop,
)
from engine.neural.latent import average_identity, blend
from engine.neural.loading import SwapModels, load_swap_models
from engine.stages.base import Stage
from engine.swap.assign import assign_sources

log = logging.getLogger(__name__)


class SourcePhotos(Protocol):
    """What the swapper needs of a source identity (engine.swap.library's entries)."""

    @property
    def images(self) -> Sequence[Frame]: ...

    @property
    def landmarks(self) -> Sequence[NDArray[np.float32]]: ...


class SourceLookup(Protocol):
    def get(self, key: str) -> SourcePhotos | None: ...


class NeuralSwapStage(Stage):
    name: ClassVar[str] = "neural_swapper"

    def __init__(self, models: SwapModels, library: SourceLookup, *, cache_size: int = 16) -> None:
        self.models = models
        self.library = library
        size = models.swapper.size
        # Crop border pixels came from interpolation at the crop edge: leave them out.
        self._crop_mask = shrunk_crop_mask(size, max(2, round(0.04 * size)))
        topo = topology()
        self._face_oval = topo.region("face_oval")
        self._inner_lips = topo.region("lips_inner")
        self._latents: OrderedDict[tuple[str, str], F32] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()  # `prepare` may run on another thread

    @classmethod
    def from_settings(
        cls, settings: EngineSettings, library: SourceLookup, store: ModelStore | None = None
    ) -> NeuralSwapStage:
        """Raises ModelMissingError / ModelCorruptError (names the model and the fix)."""
        return cls(load_swap_models(store or ModelStore(), settings.models), library)

    # --- identities ---------------------------------------------------------------------
    def embed_photos(self, photos: SourcePhotos) -> list[F32]:
        embeddings = []
        for image, landmarks in zip(photos.images, photos.landmarks, strict=False):
            try:
                points = five_points_from_mesh(np.asarray(landmarks, np.float32))
                embeddings.append(self.models.embedder.embed(image, points))
            except ValueError as exc:
                log.warning("source photo skipped: %s", exc)
        return embeddings

    def source_latent(self, key: str) -> F32 | None:
        """The swapper latent of source `key` (cached), or None when it has no usable photo."""
        cache_key = (key, self.models.key)
        with self._lock:
            if cache_key in self._latents:
                self._latents.move_to_end(cache_key)
                return self._latents[cache_key]
        try:
            photos = self.library.get(key)
        except KeyError:
            photos = None
        if photos is None:
            return None
        embeddings = self.embed_photos(photos)
        if not embeddings:
            return None
        latent = self.models.swapper.latent(average_identity(embeddings))
        with self._lock:
            self._latents[cache_key] = latent
            while len(self._latents) > self._cache_size:
                self._latents.popitem(last=False)
        return latent

    def providers(self) -> tuple[str, ...]:
        return tuple(
            dict.fromkeys((*self.models.swapper.providers, *self.models.embedder.providers))
        )

    def prepare_source(self, key: str) -> bool:
        """Compute a source's latent ahead of time (e.g. when the user picks it)."""
        return self.source_latent(key) is not None

    # --- frames -------------------------------------------------------------------------
    def swap_face(
        self,
        frame: Frame,
        face: Face,
        source: F32,
        alpha: float,
        *,
        keep_mouth: bool = True,
        steps: StepTimer = NO_STEPS,
    ) -> FacePatch | None:
        if face.landmarks is None:
            return None
        swapper = self.models.swapper
        with steps.step("align"):
            points = five_points_from_mesh(face.landmarks)
            affine = similarity_transform(points, swapper.template)
            region = back_region(affine, swapper.size, frame.shape)
            if region is None:
                return None
            crop = warp_crop(frame, affine, swapper.size)
        latent = source
        if alpha < 1.0:
            with steps.step("embed_target"):
                # The target's own identity through the same projection; alpha mixes the two.
                embedding = self.models.embedder.embed(frame, points)
                latent = blend(swapper.latent(embedding), source, alpha)
        with steps.step("ort_run"):
            swapped = swapper.swap(crop, latent)
        with steps.step("paste"):
            image = np.asarray(warp_back(swapped, affine, region), np.float32)
            covered = np.asarray(warp_back(self._crop_mask, affine, region), np.float32)
            # The crop is a square: only its face (the mesh's oval) may replace the target,
            # as with the built-in swapper's mesh coverage; the compositor erodes and
            # feathers it.
            local = face.landmarks[:, :2] - np.array(region[:2], np.float32)
            mask = covered * self._polygon(local[self._face_oval], covered.shape)
            keep = self._polygon(local[self._inner_lips], covered.shape) if keep_mouth else None
        return FacePatch(region[0], region[1], image, mask, keep_mask=keep)

    @staticmethod
    def _polygon(points: NDArray[np.float32], shape: tuple[int, ...]) -> NDArray[np.float32]:
        canvas = np.zeros(shape[:2], np.uint8)
        fixed = np.round(points * 4).astype(np.int32)  # 2 fractional bits: sub-pixel edges
        cv2.fillPoly(canvas, [fixed], 255, cv2.LINE_AA, shift=2)
        return canvas.astype(np.float32) * (1.0 / 255.0)

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        swap = settings.swap
        if not swap.enabled:
            return packet
        swapped = 0
        missing: list[str] = []
        for face, key in assign_sources(packet.faces, swap):
            latent = self.source_latent(key)
            if latent is None:
                missing.append(key)
                continue
            patch = self.swap_face(
                packet.frame,
                face,
                latent,
                swap.alpha,
                keep_mouth=swap.keep_mouth_interior,
                steps=packet.steps,
            )
            if patch is not None:
                face.patch = patch
                swapped += 1
        packet.info["swapper"] = {
            "kind": "neural",
            "model": self.models.swapper_spec.name,
            "swapped": swapped,
            "missing_sources": missing,
        }
        return packet
