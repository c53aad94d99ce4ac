"""Light from the target, albedo and detail from the source: smooth skin fields in UV space.

A single photo's light cannot be divided out with a 9-term SH fit: side light, soft
studio light and a hard flash all leave more than it can model. Instead both faces are
unwrapped into the mesh's texture space at a low resolution and a *smooth skin field*
is fitted robustly to each: a masked (normalised) Gaussian blur of the skin texels, with
texels that do not look like the face's skin (beard, brows, hair, glasses, specular
spots) down-weighted and refitted. The field holds what varies slowly over skin: the
light and the skin's own colour. Dividing the source by its field leaves albedo detail
(features, beard, pores); multiplying by the target's field puts that detail in the
target's light and skin colour. Eyes keep the source's colour: only brightness moves
there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.face.mesh import topology
from engine.render.uvmap import uv_map
from engine.core.types import Frame, Landmarks

F32 = NDArray[np.float32]

FIELD_SIZE = 64  # texels across the texture square
FIELD_SIGMA = 2.5  # texels; the face spans ~60 of them
ROBUST_TAU = 0.25  # log-luminance distance from the fit at which a texel counts half
LOCAL_SUPPORT = 0.1
LOCAL_TAU = 0.2
ROBUST_ITERATIONS = 3
RATIO_LIMITS = (0.2, 5.0)
TONE_SHIFT = 0.5
EYE_LIMITS = (0.6, 1.6)
_LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR

# MediaPipe brow outlines: lower edge, then upper edge (a closed polygon).
_BROWS = ((276, 283, 282, 295, 285, 336, 296, 334, 293, 300), (46, 53, 52, 65, 55, 107, 66, 105, 63, 70))


# Around each nostril (MediaPipe nose-tip/alar points).
_NOSTRILS = ((98, 97, 2, 326, 327, 294, 278, 344, 440, 275, 4, 45, 220, 115, 48, 64),)


@dataclass(frozen=True)
class FeatureMasks:
    """UV-space masks at one texture size (1 inside)."""

    skin: F32  # plain skin: not eyes, brows or lips
    eyes: F32  # eye openings (iris, sclera): colour is never shifted here
    features: F32  # eyes, brows, lips and nostrils, soft-edged: where identity detail is


def _polygon_mask(size: int, polygons: list[NDArray[np.float32]], grow: float) -> F32:
    mask = np.zeros((size, size), np.uint8)
    for poly in polygons:
        cv2.fillPoly(mask, [np.round(poly * size * 4).astype(np.int32)], 255, cv2.LINE_AA, 2)
    radius = max(1, round(grow * size))
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1,) * 2))
    return mask.astype(np.float32) / 255.0


@lru_cache(maxsize=4)
def feature_masks(size: int) -> FeatureMasks:
    topo = topology()
    uv = topo.uv

    def hull(name: str) -> NDArray[np.float32]:
        pts = uv[topo.region(name)].astype(np.float32)
        return cv2.convexHull(pts).reshape(-1, 2)

    eyes = [hull("left_eye"), hull("right_eye")]
    brows = [uv[list(b)].astype(np.float32) for b in _BROWS]
    lips = [hull("lips_outer")]
    features = _polygon_mask(size, [*eyes, *brows, *lips], grow=0.02)
    covered = uv_map(size).covered.astype(np.float32)
    nostrils = [cv2.convexHull(uv[list(n)].astype(np.float32)).reshape(-1, 2) for n in _NOSTRILS]
    soft = _polygon_mask(size, [*eyes, *brows, *lips, *nostrils], grow=0.025)
    soft = cv2.GaussianBlur(soft, (0, 0), 0.012 * size)
    return FeatureMasks(
        skin=covered * (1.0 - features),
        eyes=_polygon_mask(size, eyes, grow=0.005),
        features=soft,
    )


def luminance(image: F32) -> F32:
    return image @ _LUMA


@lru_cache(maxsize=4)
def _layout(size: int) -> tuple[F32, F32]:
    """(quadratic basis over the texture square, S²×6; the upper-face zone, S×S), where
    the zone is 1 above the nose tip and fades to 0 over the mouth: there a dark patch
    is more likely a beard (albedo) than a shadow (light)."""
    grid = (np.arange(size, dtype=np.float32) + 0.5) / size * 2.0 - 1.0
    v, u = np.meshgrid(grid, grid, indexing="ij")
    basis = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1).reshape(-1, 6)
    topo = topology()
    nose_tip = float(topo.uv[4, 1])  # vertex 4: the nose tip
    mouth = float(topo.uv[topo.region("lips_outer"), 1].mean())
    rows = (np.arange(size, dtype=np.float32) + 0.5) / size
    zone = np.clip((mouth - rows) / max(mouth - nose_tip, 1e-3), 0.0, 1.0)
    return basis.astype(np.float32), np.repeat(zone[:, None], size, axis=1)


def smooth_field(texture: F32, weight: F32, sigma: float = FIELD_SIGMA) -> F32:
    """The slowly varying part of the skin (light × skin colour) of an S×S×3 texture,
    from skin texels weighted by `weight` (0..1), extrapolated over features and holes.

    Two parts, in log space: a quadratic over the whole face fitted with robust
    (Cauchy) weights, so a beard, hair or a bright spot cannot bend it; and, in the
    upper face only, a local correction (masked blur of the residual) that follows cast
    shadows and the light's falloff into the eye sockets."""
    size = texture.shape[0]
    basis, zone = _layout(size)
    log_tex = np.log(np.maximum(texture, 0.0) + 1.0).reshape(-1, 3).astype(np.float64)
    w = weight.reshape(-1).astype(np.float64)
    base = np.zeros_like(log_tex)
    for _ in range(ROBUST_ITERATIONS + 1):
        bw = basis * w[:, None]
        lhs = bw.T @ basis + np.eye(6) * 1e-3
        coeffs = np.linalg.solve(lhs, bw.T @ log_tex)
        base = basis @ coeffs
        residual = (log_tex - base).mean(axis=1)
        w = weight.reshape(-1) / (1.0 + (residual / ROBUST_TAU) ** 2)
    residual_img = (log_tex - base).reshape(size, size, 3).astype(np.float32)
    # Below the nose only texels close to the fit count (a beard is not light).
    robust = 1.0 / (1.0 + (residual.reshape(size, size) / LOCAL_TAU) ** 2)
    local_w = (weight * (zone + (1.0 - zone) * robust)).astype(np.float32)
    den = cv2.GaussianBlur(local_w, (0, 0), sigma)
    num = cv2.GaussianBlur(residual_img * local_w[..., None], (0, 0), sigma)
    # Where the local support is thin the correction fades to 0 (the quadratic alone).
    local = num / (den + LOCAL_SUPPORT)[..., None]
    field = np.exp(base.reshape(size, size, 3) + local) - 1.0
    return field.astype(np.float32)


def unwrap_lowres(
    frame: Frame, landmarks: Landmarks, facing: F32, size: int = FIELD_SIZE
) -> tuple[F32, F32]:
    """The frame's face in texture space at `size`² (S×S×3 float), and each texel's
    weight (how squarely the camera saw it; 0 outside the face)."""
    uvm = uv_map(size)
    xy = landmarks[:, :2].astype(np.float32)
    x0, y0 = np.floor(xy.min(axis=0)).astype(int)
    x1, y1 = np.ceil(xy.max(axis=0)).astype(int)
    height, width = frame.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1 + 1, width), min(y1 + 1, height)
    # Sample from a copy scaled to about 2 frame pixels per texel (no aliasing).
    scale = min(1.0, 2.0 * size / max(x1 - x0, y1 - y0, 1))
    crop = frame[y0:y1, x0:x1]
    if scale < 1.0:
        crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    attrs = np.column_stack([(xy - [x0, y0]) * scale, facing]).astype(np.float32)
    texel = uvm.interpolate(attrs)
    texture = cv2.remap(
        crop.astype(np.float32),
        texel[..., 0],
        texel[..., 1],
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    weight = np.clip(texel[..., 2], 0.0, 1.0) * uvm.covered
    return texture, weight.astype(np.float32)


def skin_weight(weight: F32, size: int = FIELD_SIZE) -> F32:
    return weight * feature_masks(size).skin


def skin_mean(field: F32, size: int = FIELD_SIZE) -> F32:
    skin = feature_masks(size).skin
    return ((field * skin[..., None]).sum(axis=(0, 1)) / max(float(skin.sum()), 1e-6)).astype(
        np.float32
    )


def light_ratio(target_field: F32, source_field: F32, size: int = FIELD_SIZE) -> F32:
    """Per-texel BGR gain: the target's light (its field's variation about its mean) in
    place of the source's, and the skin tone moved `TONE_SHIFT` of the way to the
    target's. Over the eyes, brightness only and no tone: the iris keeps its colour."""
    mean_t, mean_s = skin_mean(target_field, size), skin_mean(source_field, size)
    shading = (target_field / mean_t) / np.maximum(source_field / mean_s, 1e-3)
    tone = (mean_t / mean_s) ** TONE_SHIFT
    ratio = shading * tone
    grey = luminance(shading)[..., None]
    eyes = feature_masks(size).eyes[..., None]
    ratio = ratio * (1.0 - eyes) + np.clip(grey, *EYE_LIMITS) * eyes
    return np.clip(ratio, *RATIO_LIMITS).astype(np.float32)


def upsample(field: F32, size: int) -> F32:
    """A field at S² resampled to size² on the same texel-centre grid (u·S ↔ u·size)."""
    small = field.shape[0]
    grid = np.arange(size, dtype=np.float32) * (small / size)
    mx, my = np.meshgrid(grid, grid)
    return cv2.remap(field, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def skin_colour(texture: F32, weight: F32) -> F32:
    """Mean colour of the skin texels (BGR)."""
    skin = skin_weight(weight, texture.shape[0])
    return ((texture * skin[..., None]).sum(axis=(0, 1)) / max(float(skin.sum()), 1e-6)).astype(
        np.float32
    )


def downsample(texture: F32, size: int = FIELD_SIZE) -> F32:
    """A texture at T² box-averaged to size² on the same texel-centre grid."""
    big = texture.shape[0]
    factor = big / size
    k = 2 * round(factor / 2) + 1
    blurred = cv2.blur(texture, (k, k))
    grid = np.arange(size, dtype=np.float32) * factor
    mx, my = np.meshgrid(grid, grid)
    return cv2.remap(blurred, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def texture_field(albedo: F32, size: int = FIELD_SIZE) -> F32:
    """The smooth skin field of a source's (de-lit) texture, on the field grid."""
    low = downsample(albedo, size)
    weight = uv_map(size).covered.astype(np.float32)
    return smooth_field(low, skin_weight(weight, size))
