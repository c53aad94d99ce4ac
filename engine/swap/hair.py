"""Where a source's texture shows hair or headwear instead of skin (fringe, temples).

A fringe over the forehead or strands at the temples are not the person's face: painted
onto a target they become a strip of hair across a bare forehead, or streaks down the
cheeks that switch sides as the head turns. Inside the hair zone (above the brows, and
the outer ring of the face down to the mouth) a texel counts as skin when its colour is
close to the face's own skin. Anywhere off the features, a clearly other hue than
skin's is masked too (a blue wall or a red collar where the mesh's edge reached past the
face), while grey, black, brown or white stays (a beard of any colour). Elsewhere
everything is kept (a beard or lipstick is the person's identity).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from engine.core.types import F32
from engine.face.mesh import topology
from engine.render.uvmap import uv_map
from engine.swap.shading import feature_masks

SKIN_DELTA_E = (12.0, 26.0)  # Lab distance from the reference skin: skin → not skin
STRAND_CONTRAST = (0.07, 0.15)  # relative local lightness spread: skin → strands
# Chroma off the skin's hue (Lab a, b): skin-like → background. A blue wall is 30–60 off;
# (12, 24) also masked dflw_077's coloured stage light (ID@1 99.5 → 98.9 %).
OFF_HUE = (20.0, 35.0)
RING = 0.09  # width of the outer ring judged for hair (fraction of the texture)
WORK_SIZE = 128


@lru_cache(maxsize=2)
def hair_zone(size: int) -> F32:
    """1 where hair may cover the face in a photo (forehead above the brows, and the
    face's outer ring above the mouth), fading to 0 elsewhere."""
    topo = topology()
    uv = topo.uv
    brows = np.concatenate([topo.region("left_eyebrow"), topo.region("right_eyebrow")])
    brow_top = float(uv[brows, 1].min())
    mouth = float(uv[topo.region("lips_outer"), 1].mean())
    rows = ((np.arange(size, dtype=np.float32) + 0.5) / size)[:, None]
    above = np.clip((brow_top - rows) / 0.04, 0.0, 1.0)
    covered = uv_map(size).covered.astype(np.uint8)
    edge = cv2.distanceTransform(covered, cv2.DIST_L2, 5) / size
    ring = np.clip((RING - edge) / (0.5 * RING), 0.0, 1.0) * np.clip((mouth - rows) / 0.05, 0, 1)
    zone = np.maximum(np.broadcast_to(above, (size, size)), ring) * covered
    return cv2.GaussianBlur(zone.astype(np.float32), (0, 0), size / 128)


@lru_cache(maxsize=2)
def hue_zone(size: int) -> F32:
    """Everywhere on the face but the features (an iris may be blue, lips purple): where
    a colour of clearly another hue than skin is the background or clothing the mesh's
    edge reached past the face, not the person."""
    return (uv_map(size).covered * (1.0 - feature_masks(size).features)).astype(np.float32)


def _lab(bgr: F32) -> F32:
    """CIELAB with L in 0..100 (OpenCV's float conversion)."""
    return cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def _skin_hued(lab: F32, reference: F32) -> F32:
    """1 where a texel's colour is grey-ish or of the skin's own hue, however light or
    dark (skin, a black, brown or white beard), 0 where it is clearly another hue (a blue
    wall, green leaves): its chroma's distance from the ray of the skin's hue."""
    ab = lab[..., 1:]
    hue = reference[1:] / max(float(np.linalg.norm(reference[1:])), 1e-3)
    along = np.maximum(ab @ hue, 0.0)
    off = np.linalg.norm(ab - along[..., None] * hue, axis=-1)
    lo, hi = OFF_HUE
    return np.clip((hi - off) / (hi - lo), 0.0, 1.0).astype(np.float32)


def skin_mask(albedo: F32, vertex_albedo: F32, skin_ids: np.ndarray) -> F32:
    """T×T: 1 where the texture is the source's skin, 0 where hair or headwear covers it
    (inside the hair zone) or a clearly other hue than skin's shows (off the features)."""
    topo = topology()
    size = albedo.shape[0]
    small = cv2.resize(albedo, (WORK_SIZE, WORK_SIZE), interpolation=cv2.INTER_AREA)
    lab = _lab(small)
    # The reference is the upper face's skin: a beard must not drag it down.
    nose_tip = float(topo.uv[4, 1])
    upper = skin_ids[topo.uv[skin_ids, 1] < nose_tip]
    reference = np.median(_lab(vertex_albedo[upper][None])[0], axis=0)
    diff = lab - reference
    # Light varies skin's lightness more than its hue, and a bright (specular) forehead
    # is still skin: lighter counts a quarter.
    diff[..., 0] = np.where(diff[..., 0] < 0, 1.0, 0.25) * diff[..., 0]
    distance = np.linalg.norm(diff, axis=2)
    lo, hi = SKIN_DELTA_E
    skin = np.clip((hi - distance) / (hi - lo), 0.0, 1.0)
    # Hair close to the skin's colour (ginger, blond) still shows as strands: strong
    # local contrast that skin, even wrinkled, rarely has at this scale.
    lightness = lab[..., 0]
    mean = cv2.blur(lightness, (5, 5))
    spread = np.sqrt(np.maximum(cv2.blur(lightness * lightness, (5, 5)) - mean * mean, 0.0))
    lo_c, hi_c = STRAND_CONTRAST
    smooth = np.clip((hi_c - spread / np.maximum(mean, 1.0)) / (hi_c - lo_c), 0.0, 1.0)
    skin = skin * cv2.GaussianBlur(smooth, (0, 0), 1.0)
    mask = 1.0 - hair_zone(WORK_SIZE) * (1.0 - skin)
    mask -= hue_zone(WORK_SIZE) * (1.0 - _skin_hued(lab, reference))
    mask = np.clip(mask, 0.0, 1.0)
    mask = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 1.0)
    return cv2.resize(mask, (size, size), interpolation=cv2.INTER_LINEAR).astype(np.float32)
