"""A source identity (the latent): de-lit texture in mesh texture space, shape and colour.

Built from one or more photos of one person: each photo's face is unwrapped into the
mesh's texture space, its own lighting divided out with its SH fit, texels the photo
saw at a grazing angle are filled from the mirrored side, and the photos are averaged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32, Frame, Landmarks
from engine.face.fit import FaceFitter, vertex_normals
from engine.face.mesh import topology
from engine.face.sh import RELIGHT_BANDS, shading
from engine.render.uvmap import fill_outside, uv_map
from engine.swap import shading as shading_mod

_SHADE_RANGE = (0.8, 1.25)  # de-lighting brightens or darkens a texel by at most this
_MIRROR_PREFERENCE = 0.05  # the mirrored side only wins where this side was barely seen


@dataclass(frozen=True, eq=False)
class SourceIdentity:
    key: str
    name: str
    paths: tuple[Path, ...]
    albedo: F32  # T×T×3 BGR 0..255, lighting removed
    canonical: F32  # 468×3 pose-free shape (canonical units)
    vertex_albedo: F32  # 468×3 albedo at each vertex (for colour matching)
    thumbnail: NDArray[np.uint8]
    warning: str | None = None
    # T×T: 1 where the texture is the source's skin, 0 where its forehead shows something
    # else (a fringe, a hat brim) that must not be painted onto the target's forehead.
    forehead_skin: F32 | None = field(default=None, repr=False)
    # What neural swappers need to compute their own embeddings.
    images: tuple[Frame, ...] = field(default=(), repr=False)
    landmarks: tuple[Landmarks, ...] = field(default=(), repr=False)


@dataclass(frozen=True, eq=False)
class UnwrappedPhoto:
    albedo: F32
    weight: NDArray[np.float32]  # T×T confidence (how squarely the photo saw each texel)
    canonical: F32


DELIGHT = "field"


def unwrap(image: Frame, landmarks: Landmarks, fitter: FaceFitter) -> UnwrappedPhoto:
    uvm = uv_map()
    fit = fitter.fit(image, landmarks)
    normals = vertex_normals(landmarks, fitter.triangles)
    vertex_shade = np.clip(shading(normals, fit.lighting, RELIGHT_BANDS), *_SHADE_RANGE)
    facing = np.clip(-normals[:, 2], 0.0, 1.0)
    attrs = np.column_stack([landmarks[:, :2], vertex_shade, facing]).astype(np.float32)
    texel = uvm.interpolate(attrs)
    texture = cv2.remap(
        image.astype(np.float32),
        texel[..., 0],
        texel[..., 1],
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if DELIGHT == "field":
        low, low_weight = shading_mod.unwrap_lowres(image, landmarks, facing)
        field = shading_mod.smooth_field(low, shading_mod.skin_weight(low_weight))
        colour = shading_mod.skin_colour(low, low_weight)
        albedo = texture / np.maximum(shading_mod.upsample(field, uvm.size), 1.0) * colour
    else:
        albedo = texture / np.maximum(texel[..., 2:5], 1e-3)
    visibility = texel[..., 5] * uvm.covered
    # Mirror fill: the texture layout is left/right symmetric about u = 0.5.
    w_own = visibility**4
    w_mirror = _MIRROR_PREFERENCE * w_own[:, ::-1]
    total = w_own + w_mirror
    blended = (albedo * w_own[..., None] + albedo[:, ::-1] * w_mirror[..., None]) / np.maximum(
        total, 1e-6
    )[..., None]
    return UnwrappedPhoto(
        blended.astype(np.float32), total.astype(np.float32), fit.canonical_landmarks
    )


def combine(photos: list[UnwrappedPhoto]) -> tuple[F32, F32]:
    """Average several photos' textures (by confidence) and shapes; fill outside the face."""
    uvm = uv_map()
    weights = np.stack([p.weight for p in photos])[..., None] + 1e-6
    albedo = (np.stack([p.albedo for p in photos]) * weights).sum(axis=0) / weights.sum(axis=0)
    albedo = fill_outside(albedo.astype(np.float32), uvm.covered)
    canonical = np.mean([p.canonical for p in photos], axis=0).astype(np.float32)
    return albedo, canonical


def vertex_colours(albedo: F32) -> F32:
    """Albedo sampled at each vertex's texture coordinate."""
    size = albedo.shape[0]
    uv = topology().uv * size
    sampled = cv2.remap(
        albedo,
        uv[:, 0:1].copy(),
        uv[:, 1:2].copy(),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return sampled.reshape(-1, 3).astype(np.float32)


def thumbnail(image: Frame, landmarks: Landmarks, size: int = 128) -> NDArray[np.uint8]:
    x0, y0 = landmarks[:, :2].min(axis=0)
    x1, y1 = landmarks[:, :2].max(axis=0)
    side = max(x1 - x0, y1 - y0) * 1.3
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    scale = size / side
    m = np.array([[scale, 0, size / 2 - cx * scale], [0, scale, size / 2 - cy * scale]])
    return cv2.warpAffine(
        image, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


_SKIN_DELTA_E = (12.0, 28.0)  # Lab distance from the median skin: fully skin → not skin


def forehead_skin(albedo: F32, vertex_albedo: F32, skin_ids: NDArray[np.int64]) -> F32:
    """Which forehead texels are skin (1) rather than hair or headwear (0).

    Only the band above the brows is judged: lower down, a beard or lipstick is the
    source's identity, but a fringe over the forehead would be pasted onto a target's
    bare forehead as a painted-on strip of hair."""
    topo = topology()
    size = albedo.shape[0]
    lab = cv2.cvtColor(np.clip(albedo, 0, 255).astype(np.uint8), cv2.COLOR_BGR2Lab).astype(
        np.float32
    )
    skin = cv2.cvtColor(
        np.clip(vertex_albedo[skin_ids], 0, 255).astype(np.uint8)[None], cv2.COLOR_BGR2Lab
    )[0].astype(np.float32)
    reference = np.median(skin, axis=0)
    diff = lab - reference
    diff[..., 0] *= 0.5  # shading varies skin's lightness more than its hue
    distance = np.linalg.norm(diff, axis=2)
    lo, hi = _SKIN_DELTA_E
    weight = np.clip((hi - distance) / (hi - lo), 0.0, 1.0)
    brows = np.concatenate([topo.region("left_eyebrow"), topo.region("right_eyebrow")])
    brow_top = float(topo.uv[brows, 1].min()) * size
    rows = np.arange(size, dtype=np.float32)[:, None]
    # Full judgement well above the brows, none at them (brows are identity, not hair).
    above = np.clip((brow_top - rows) / (0.04 * size), 0.0, 1.0)
    weight = 1.0 - above * (1.0 - weight)
    return cv2.GaussianBlur(weight.astype(np.float32), (0, 0), size / 128)
