"""Cast shadows and highlights in a source photo (a cap brim, hair, a hard side light, a
flash on the nose) are light, not skin.

After the smooth de-lighting (engine/swap/shading.py) a cast shadow is still there: its
edge is too sharp for a smooth field. It shows as skin that is much darker than the
face's skin colour but keeps its hue and its smooth texture — unlike a beard, a brow or
hair, which are dark *and* textured, or differ in hue. Such texels are found in texture
space and brightened by the shadow's own (smoothed) darkening, so their detail stays.
A specular highlight is the opposite: lighter than the skin and nearly colourless (the
lamp's colour). It is toned down the same way, by its own smoothed brightening; painted
onto a target it was a white blob that no light of the target's made.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from engine.core.types import F32
from engine.face.mesh import topology
from engine.render.uvmap import uv_map
from engine.swap.shading import feature_masks, luminance

WORK_SIZE = 128  # detection resolution (texels across the texture square)
DARK = (0.88, 0.7)
LIT_PERCENTILE = 75  # lightness ratio to the skin: not shadow → fully shadow
CHROMA = (0.025, 0.05)  # chromaticity distance to the skin: shadow-like → not
TEXTURE = (0.06, 0.12)  # relative local contrast: smooth skin → hair or beard
MIN_RATIO = 0.25  # never brighten (or darken) by more than 4×
# Highlights: a clipped flash spot on pale skin is only 1.3–1.45× the skin's lightness,
# so paleness decides. Measured on DEV+WIDE: this toned dflw_038's nose spot down to skin
# with leave-source-out, ID@1 and seams unchanged (85.2 %, 99.5 %, 0.076); lightness
# (1.25, 1.5) with saturation (0.5, 0.85) left half the spot and took leave-source-out
# to 83.6 % (it also toned down shiny skin that keeps its colour, as biden_2's).
BRIGHT = (1.15, 1.35)  # lightness ratio to the typical skin: not highlight → fully
PALE = (0.25, 0.5)  # saturation ratio to the skin's: fully highlight → not
_NOSE_BASE = 2  # MediaPipe's subnasale
# Lit skin: broad light above this many times the skin's lightness keeps `LIT_KEEP` of
# its excess. Measured on DEV+WIDE against no compression, with a first version that
# smoothed at full texture resolution: leave-source-out the same (52 of 61; mean margin
# to the nearest other identity +0.002), |seam grad| 0.076 → 0.072 (this version, with
# the source's outlier cut: 0.072 too). On the leave-source-out pairs a knee of 1.05
# keeping 0.25 gave seams 0.073 but a smaller margin; lifting the dark side too (below
# 0.85) cost margin (−0.002).
LIT_KNEE = 1.1
LIT_KEEP = 0.4
LIT_SMOOTH = 0.03  # fraction of the texture (about 0.1 IOD): broad light, not detail


def _ramp(value: F32, full: float, none: float) -> F32:
    """1 at `full`, 0 at `none`, linear between (either direction)."""
    return np.clip((value - none) / (full - none), 0.0, 1.0).astype(np.float32)


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def _chromaticity(image: F32) -> F32:
    return image / np.maximum(image.sum(axis=-1, keepdims=True), 1e-3)


def _working(texture: F32) -> tuple[F32, F32, F32]:
    """`texture` at the detection resolution, its lightness, and where it is plain skin."""
    small = cv2.resize(texture, (WORK_SIZE, WORK_SIZE), interpolation=cv2.INTER_AREA)
    skin = feature_masks(WORK_SIZE).skin * uv_map(WORK_SIZE).covered
    return small, luminance(small), skin


def _grown(core: F32, like: F32, radius: int) -> F32:
    """`core` grown by `radius` over the texels that look `like` it."""
    return np.maximum(core, cv2.dilate(core, _disk(radius)) * like)


def _to_texture(score: F32, size: int) -> F32:
    """A detection-resolution mask softened, cut to the face and brought to `size`."""
    score = cv2.GaussianBlur(score, (0, 0), 1.0) * uv_map(WORK_SIZE).covered
    return cv2.resize(score, (size, size), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def shadow_mask(texture: F32, skin_colour: F32) -> F32:
    """Soft mask (S×S, same size as `texture`) of texels in a cast shadow."""
    small, lum, skin = _working(texture)
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
    score = _grown(core, shadow_like, 3)
    return _to_texture(cv2.morphologyEx(score, cv2.MORPH_CLOSE, _disk(4)), texture.shape[0])


def lift_shadows(texture: F32, mask: F32, skin_colour: F32) -> F32:
    """`texture` with shadowed texels brightened back to the skin's level (BGR gain per
    texel: the shadow's smoothed darkening, so skin detail inside it is kept)."""
    return _back_to_skin(texture, mask, skin_colour, MIN_RATIO, 1.0)


def highlight_mask(texture: F32, skin_colour: F32) -> F32:
    """Soft mask (S×S, same size as `texture`) of specular highlights on the skin: much
    lighter than the skin and paler (light reflected off the surface has the lamp's
    colour, not the skin's), and a region rather than a speckle."""
    small, lum, skin = _working(texture)
    typical = float(np.median(lum[skin > 0.5])) if (skin > 0.5).any() else 255.0
    # Kept clear of the eyes' surround too: the white of an eye reaching past the eye's
    # outline is the eye, not glare (toned down, it cost alex_1 its identity on 1423_1).
    skin = skin * (1.0 - cv2.dilate(feature_masks(WORK_SIZE).eyes, _disk(4)))
    bright = _ramp(lum / max(typical, 1.0), BRIGHT[1], BRIGHT[0])
    pale = _ramp(_saturation(small) / max(float(_saturation(skin_colour)), 1e-3), *PALE)
    glare_like = bright * pale * skin * _glare_zone(WORK_SIZE)
    score = _grown(cv2.morphologyEx(glare_like, cv2.MORPH_OPEN, _disk(1)), glare_like, 3)
    # One texel further: the softening must not leave the highlight's rim half-lit.
    return _to_texture(cv2.dilate(score, _disk(1)), texture.shape[0])


@lru_cache(maxsize=2)
def _glare_zone(size: int) -> F32:
    """1 above the base of the nose, fading out below it: highlights sit on the forehead,
    the nose and the cheekbones, while below it a white moustache or beard is as light and
    pale as a highlight but is the person's own."""
    base = float(topology().uv[_NOSE_BASE, 1])
    rows = (np.arange(size, dtype=np.float32) + 0.5) / size
    zone = np.clip((base + 0.02 - rows) / 0.04, 0.0, 1.0)[:, None]
    return np.broadcast_to(zone, (size, size)).astype(np.float32)


def tame_highlights(texture: F32, mask: F32, skin_colour: F32) -> F32:
    """`texture` with highlight texels darkened back to the skin's level and colour."""
    return _back_to_skin(texture, mask, skin_colour, 1.0, 1.0 / MIN_RATIO)


def even_lit_skin(texture: F32, skin_colour: F32) -> F32:
    """`texture` with the broad light left on the skin's lit side compressed towards the
    skin's level; its detail and the features (eyes, brows, lips) kept.

    A quadratic field cannot follow the light on a cheek's bulge or a nose's flank, so
    the side of a face that faced the lamp stays up to 1.3–1.5× lighter than its skin
    (alex_lacamoire_2, biden_2: the 90th percentile of plain skin). Multiplied by a pale
    target's light that went past white: a glaring patch across one cheek."""
    _, lum, skin = _working(texture)
    level = max(float(luminance(skin_colour[None])[0]), 1.0)
    sigma = LIT_SMOOTH * WORK_SIZE
    weight = cv2.GaussianBlur(skin, (0, 0), sigma)
    broad = cv2.GaussianBlur(lum / level * skin, (0, 0), sigma) / np.maximum(weight, 1e-3)
    excess = np.maximum(broad - LIT_KNEE, 0.0)
    if not excess.any():
        return texture
    factor = 1.0 - excess * (1.0 - LIT_KEEP) / np.maximum(broad, 1e-3)
    size = texture.shape[0]
    factor = cv2.resize(factor, (size, size), interpolation=cv2.INTER_LINEAR)
    factor = 1.0 + (factor - 1.0) * (1.0 - feature_masks(size).features)
    return (texture * factor[..., None]).astype(np.float32)


def _saturation(bgr: F32) -> F32:
    top = bgr.max(axis=-1)
    return ((top - bgr.min(axis=-1)) / np.maximum(top, 1.0)).astype(np.float32)


def _back_to_skin(texture: F32, mask: F32, skin_colour: F32, low: float, high: float) -> F32:
    """Divide out a region's own smoothed ratio to the skin colour (per BGR channel),
    clipped to [low, high], as much as `mask` says: the region's light goes, the detail
    inside it stays."""
    if float(mask.max()) <= 0.0:
        return texture
    size = texture.shape[0]
    sigma = size / 96
    weight = mask * mask
    ratio = np.clip(texture / np.maximum(skin_colour, 1.0), low, high)
    smoothed = cv2.GaussianBlur(ratio * weight[..., None], (0, 0), sigma) / (
        cv2.GaussianBlur(weight, (0, 0), sigma)[..., None] + 1e-4
    )
    gain = 1.0 + mask[..., None] * (1.0 / np.clip(smoothed, low, high) - 1.0)
    return (texture * gain).astype(np.float32)
