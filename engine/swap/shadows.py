"""Cast shadows in a source photo (a cap brim, hair, a hard side light) are light, not skin.

After the smooth de-lighting (engine/swap/shading.py) a cast shadow is still there: its
edge is too sharp for a smooth field. It shows as skin that is much darker than the
face's skin colour but keeps its hue and its smooth texture — unlike a beard, a brow or
hair, which are dark *and* textured, or differ in hue. Such texels are found in texture
space and brightened by the shadow's own (smoothed) darkening, so their detail stays.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.types import F32
from engine.render.uvmap import uv_map
from engine.swap.shading import feature_masks, luminance

WORK_SIZE = 128  # detection resolution (texels across the texture square)
DARK = (0.88, 0.7)
LIT_PERCENTILE = 75  # lightness ratio to the skin: not shadow → fully shadow
CHROMA = (0.025, 0.05)  # chromaticity distance to the skin: shadow-like → not
TEXTURE = (0.06, 0.12)  # relative local contrast: smooth skin → hair or beard
MIN_RATIO = 0.25  # never brighten by more than 4×


def _ramp(value: F32, full: float, none: float) -> F32:
    """1 at `full`, 0 at `none`, linear between (either direction)."""
    return np.clip((value - none) / (full - none), 0.0, 1.0).astype(np.float32)


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def _chromaticity(image: F32) -> F32:
    return image / np.maximum(image.sum(axis=-1, keepdims=True), 1e-3)


def shadow_mask(texture: F32, skin_colour: F32) -> F32:
    """Soft mask (S×S, same size as `texture`) of texels in a cast shadow."""
    size = texture.shape[0]
    small = cv2.resize(texture, (WORK_SIZE, WORK_SIZE), interpolation=cv2.INTER_AREA)
    lum = luminance(small)
    masks = feature_masks(WORK_SIZE)
    skin = masks.skin * uv_map(WORK_SIZE).covered
    # Shadows only darken: the lit skin's lightness (not the mean, which a half-shadowed
    # face drags down) is the reference.
    lit = float(np.percentile(lum[skin > 0.5], LIT_PERCENTILE)) if (skin > 0.5).any() else 1.0
    ratio = lum / max(lit, 1.0)
    dark = _ramp(ratio, DARK[1], DARK[0])
    chroma = np.linalg.norm(_chromaticity(small) - _chromaticity(skin_colour), axis=-1)
    hue_like = _ramp(chroma, CHROMA[0], CHROMA[1])
    mean = cv2.blur(lum, (5, 5))
    contrast = np.sqrt(np.maximum(cv2.blur(lum * lum, (5, 5)) - mean * mean, 0.0))
    smooth = _ramp(contrast / np.maximum(mean, 1.0), TEXTURE[0], TEXTURE[1])
    shadow_like = dark * hue_like * skin
    # A shadow is a region, not a speckle: open away isolated texels. Its own sharp edge
    # reads as texture, so the core found away from edges grows back over dark, skin-hued
    # texels next to it; then close over the features (an eye inside a brim's shadow is
    # shadowed too).
    core = cv2.morphologyEx(shadow_like * smooth, cv2.MORPH_OPEN, _disk(2))
    score = np.maximum(core, cv2.dilate(core, _disk(3)) * shadow_like)
    score = cv2.morphologyEx(score, cv2.MORPH_CLOSE, _disk(4))
    score = cv2.GaussianBlur(score, (0, 0), 1.0) * uv_map(WORK_SIZE).covered
    return cv2.resize(score, (size, size), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def lift_shadows(texture: F32, mask: F32, skin_colour: F32) -> F32:
    """`texture` with shadowed texels brightened back to the skin's level (BGR gain per
    texel: the shadow's smoothed darkening, so skin detail inside it is kept)."""
    if float(mask.max()) <= 0.0:
        return texture
    size = texture.shape[0]
    sigma = size / 96
    weight = mask * mask
    ratio = np.clip(texture / np.maximum(skin_colour, 1.0), MIN_RATIO, 1.0)
    smoothed = cv2.GaussianBlur(ratio * weight[..., None], (0, 0), sigma) / (
        cv2.GaussianBlur(weight, (0, 0), sigma)[..., None] + 1e-4
    )
    gain = 1.0 + mask[..., None] * (1.0 / np.clip(smoothed, MIN_RATIO, 1.0) - 1.0)
    return (texture * gain).astype(np.float32)
