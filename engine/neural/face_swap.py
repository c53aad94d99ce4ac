"""The neural swapper's maths (inswapper-style): identity latents from source photos, and
one face swapped on its aligned crop and pasted back as a FacePatch.

The crop is aligned to the ArcFace template from the mesh's 5 points; the swapper runs
with the source identity latent (blended with the target's own by `swap.latent_blend`);
only the mesh's face oval of the square crop may replace the target. Compositing (erosion,
feathering, colour) is the compositor's job.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from engine.core.face_records import Face, FacePatch
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import F32, Frame
from engine.face.mesh import topology
from engine.neural.align import (
    back_region,
    five_points_from_mesh,
    shrunk_crop_mask,
    similarity_transform,
    warp_back,
    warp_crop,
)
from engine.neural.latent import average_identity, blend
from engine.neural.loading import SwapModels
from engine.render.polygon import polygon_mask

log = logging.getLogger(__name__)


class SourcePhotos(Protocol):
    """What the swapper needs of a source identity (engine.swap.library's entries)."""

    @property
    def images(self) -> Sequence[Frame]: ...

    @property
    def landmarks(self) -> Sequence[NDArray[np.float32]]: ...


class NeuralFaceSwapper:
    """One loaded model pair and the mesh regions its paste-back uses; thread-safe (the
    models are onnxruntime sessions, the rest is read-only)."""

    def __init__(self, models: SwapModels) -> None:
        self.models = models
        size = models.swapper.size
        # Crop border pixels came from interpolation at the crop edge: leave them out.
        self._crop_mask = shrunk_crop_mask(size, max(2, round(0.04 * size)))
        topo = topology()
        self._face_oval = topo.region("face_oval")
        self._inner_lips = topo.region("lips_inner")

    def source_latent(self, photos: SourcePhotos) -> F32 | None:
        """The swapper latent of one person's photos; None when no photo is usable."""
        embeddings = []
        for image, landmarks in zip(photos.images, photos.landmarks, strict=False):
            try:
                points = five_points_from_mesh(np.asarray(landmarks, np.float32))
                embeddings.append(self.models.embedder.embed(image, points))
            except ValueError as exc:
                log.warning("source photo skipped: %s", exc)
        if not embeddings:
            return None
        return self.models.swapper.latent(average_identity(embeddings))

    def swap_face(
        self,
        frame: Frame,
        face: Face,
        source: F32,
        latent_blend: float,
        *,
        keep_mouth: bool = True,
        steps: StepTimer = NO_STEPS,
    ) -> FacePatch | None:
        """`face` with the identity `source`; None without a mesh or inside the frame."""
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
        if latent_blend < 1.0:
            with steps.step("embed_target"):
                # The target's own identity through the same projection; `latent_blend`
                # (swap.latent_blend) mixes the two.
                embedding = self.models.embedder.embed(frame, points)
                latent = blend(swapper.latent(embedding), source, latent_blend)
        with steps.step("ort_run"):
            swapped = swapper.swap(crop, latent)
        with steps.step("paste"):
            image = np.asarray(warp_back(swapped, affine, region), np.float32)
            covered = np.asarray(warp_back(self._crop_mask, affine, region), np.float32)
            # The crop is a square: only its face (the mesh's oval) may replace the target,
            # as with the built-in swapper's mesh coverage; the compositor erodes and
            # feathers it.
            local = face.landmarks[:, :2] - np.array(region[:2], np.float32)
            mask = covered * polygon_mask([local[self._face_oval]], covered.shape)
            keep = polygon_mask([local[self._inner_lips]], covered.shape) if keep_mouth else None
        return FacePatch(region[0], region[1], image, mask, keep_mask=keep)
