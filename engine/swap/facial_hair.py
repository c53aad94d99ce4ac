"""Where the target has a beard, moustache or stubble: it stays the target's.

The new face is the source's skin in the target's light; over a bearded target that
painted smooth pale cheeks on a beard, with a line where the face's edge met the beard
left outside it. Hair is not who someone is, and a viewer knows the user's beard. On the
working grid, in the lower face (below the nose, off the lips and the nose, off the
face's edge), a pixel is facial hair as far as it is darker than the target's own plain
cheek skin, rougher (more fine detail) than it, and either paler in colour or, away from
the face's edge, much darker: a shadow is dark but smooth and keeps the skin's colour,
pores, wrinkles and a smile's fold are rough but skin-bright and skin-coloured, and past
the jaw the mesh reaches onto hair, a collar or the room. In the moustache's band, from
the nose to the upper lip, darker alone is enough (`BAND_DARKER`). Measured in
docs/swap.md ("The target's beard stays", "... and its moustache").
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.median import row_medians
from engine.core.types import F32
from engine.face.mesh import topology
from engine.render.polygon import polygon_mask

# Texture-space regions (u, v in 0..1; v grows down the face: nose tip ~0.55, chin ~0.95).
LOWER_FROM_V = 0.5  # the lower face starts a little above the nose tip
CHEEKS_V = (0.42, 0.52)  # plain cheek skin: under the eyes, above the nose tip
EDGE_MARGIN = 0.04  # off the face's edge (the seam blends there anyway)
INNER_MARGIN = 0.10  # where "much darker" alone may say hair
LIPS_MARGIN = 0.01
NOSE_MARGIN = 0.015
MASK_SIZE = 128
# Darker than the cheeks (grey levels) and rougher (fine detail, as a multiple of the
# cheeks'): ramps from skin to hair.
DARKER = (12.0, 36.0)
ROUGHER = (1.4, 2.4)
PALER = (0.02, 0.08)  # saturation below the cheeks'
MUCH_DARKER = (36.0, 60.0)
# Scales in working-grid pixels per 60 px between the eyes: the fine detail's, the
# average's (of roughness, darkness and saturation), and the mask's softening.
DETAIL_PX = 1.5
AVERAGE_PX = 3.0
SOFT_PX = 2.0
MIN_CHEEK_PIXELS = 50
# The moustache's band, from the nose's base to the upper lip (mesh `BAND_VERTICES`,
# grown by this much of the texture; off the lips and the nose like the rest): there a
# pixel is hair as far as it is darker than the cheeks alone (grey levels). A thin or
# soft moustache (a video's, a blurry photo's) is no rougher than the cheeks and keeps
# the skin's saturation, so the tests above missed it and the new face's upper lip came
# out bare; a clean upper lip is as light as the cheeks, and what else is that dark
# there is the target's own shadow under its nose, which belongs to it too.
BAND_VERTICES = (98, 327, 291, 61)
BAND_GROW = 0.02
BAND_DARKER = (15.0, 35.0)


@lru_cache(maxsize=1)
def regions() -> F32:
    """MASK_SIZE²×4 texture-space masks, 0..1: the lower face, the plain cheeks, the
    lower face away from its edge and the moustache's band (one array, looked up with
    one remap a frame)."""
    topo = topology()
    size = MASK_SIZE
    uv = topo.uv.astype(np.float32) * size
    shape = (size, size)
    oval = polygon_mask([uv[topo.region("face_oval")]], shape)
    edge = max(1, round(EDGE_MARGIN * size))
    face = cv2.erode(oval, np.ones((2 * edge + 1, 2 * edge + 1), np.uint8))
    deep = max(1, round(INNER_MARGIN * size))
    inner = cv2.erode(oval, np.ones((2 * deep + 1, 2 * deep + 1), np.uint8))
    grow = max(1, round(LIPS_MARGIN * size))
    lips = cv2.dilate(
        polygon_mask([uv[topo.region("lips_outer")]], shape),
        np.ones((2 * grow + 1, 2 * grow + 1), np.uint8),
    )
    wing = max(1, round(NOSE_MARGIN * size))
    nose = cv2.dilate(
        polygon_mask([uv[topo.region("nose")]], shape),
        np.ones((2 * wing + 1, 2 * wing + 1), np.uint8),  # and the shade beside its wings
    )
    v = (np.arange(size, dtype=np.float32)[:, None] + 0.5) / size * np.ones((1, size), np.float32)
    off = face * (1.0 - lips) * (1.0 - nose)
    lower = off * (v >= LOWER_FROM_V)
    cheeks = off * ((v >= CHEEKS_V[0]) & (v < CHEEKS_V[1]))
    band_grow = max(1, round(BAND_GROW * size))
    band = cv2.dilate(
        polygon_mask([uv[list(BAND_VERTICES)]], shape),
        np.ones((2 * band_grow + 1, 2 * band_grow + 1), np.uint8),
    )
    return np.dstack([lower, cheeks, lower * inner, lower * band]).astype(np.float32)


def facial_hair(
    own: F32,
    lower: F32,
    cheeks: NDArray[np.bool_],
    inner: F32,
    work_iod: float,
    band: F32 | None = None,
) -> F32:
    """H×W, 0..1: how surely each pixel of `own` (the target on the working grid, BGR
    0..255) is facial hair. `lower`: the lower-face region looked up on the grid (0..1);
    `cheeks`: where its plain cheek skin is; `inner`: the lower face away from its edge,
    where the mesh may reach past the jaw onto hair, a collar or the room; `band`: the
    moustache's band, where darker than the cheeks is enough (none: no band)."""
    if int(cheeks.sum()) < MIN_CHEEK_PIXELS or not (lower > 0.0).any():
        return np.zeros(own.shape[:2], np.float32)
    scale = max(work_iod / 60.0, 0.5)
    # Only the lower face and the cheeks, and as far around them as a blur reaches: the
    # rest of the grid (forehead, eyes, the room) never counts (half the grid's cost).
    rows = np.flatnonzero(((lower > 0.0) | cheeks).any(axis=1))
    cols = np.flatnonzero(((lower > 0.0) | cheeks).any(axis=0))
    reach = int(np.ceil(4.0 * max(AVERAGE_PX, SOFT_PX, DETAIL_PX) * scale)) + 2
    height, width = lower.shape
    y0, y1 = max(int(rows[0]) - reach, 0), min(int(rows[-1]) + reach + 1, height)
    x0, x1 = max(int(cols[0]) - reach, 0), min(int(cols[-1]) + reach + 1, width)
    out = np.zeros(own.shape[:2], np.float32)
    out[y0:y1, x0:x1] = _hair(
        own[y0:y1, x0:x1],
        lower[y0:y1, x0:x1],
        cheeks[y0:y1, x0:x1],
        inner[y0:y1, x0:x1],
        None if band is None else band[y0:y1, x0:x1],
        scale,
    )
    return out


def _hair(
    own: F32,
    lower: F32,
    cheeks: NDArray[np.bool_],
    inner: F32,
    band: F32 | None,
    scale: float,
) -> F32:
    """`facial_hair` on the part of the grid around the lower face."""
    grey = cv2.cvtColor(np.ascontiguousarray(own), cv2.COLOR_BGR2GRAY)
    # Averages over the face only: past its edge lies whatever is behind the head.
    face = ((lower > 0.0) | cheeks).astype(np.float32)
    detail = np.abs(grey - blur_on(grey, face, DETAIL_PX * scale))
    # Around each pixel, over the face: its roughness, its darkness, its saturation
    # (one three-channel blur).
    rough, mean_grey, saturation = cv2.split(
        blur_on(np.dstack([detail, grey, _saturation(own)]), face, AVERAGE_PX * scale)
    )
    # The plain cheeks' grey, roughness and saturation: np.median's values, in one
    # partition (np.median on each masked set took ~0.5 ms: engine/core/median.py).
    skin, skin_rough, skin_saturation = (
        float(v) for v in row_medians(np.stack([grey[cheeks], rough[cheeks], saturation[cheeks]]))
    )
    skin_rough = max(skin_rough, 0.5)
    # Darker on average around the pixel: a beard is; rough skin (pores, wrinkles, a
    # smile's fold: thin dark lines on bright skin) is not.
    dark = skin - mean_grey
    # Paler in colour: hair (black, brown, grey) over skin takes its saturation down; a
    # shadow or a fold keeps the skin's.
    paler = skin_saturation - saturation
    # A shadow as deep as a dark beard is rare in the lower face: that dark, colour
    # does not have to say it.
    colour = np.maximum(ramp(paler, *PALER), ramp(dark, *MUCH_DARKER) * inner)
    hair = ramp(dark, *DARKER) * ramp(rough / skin_rough, *ROUGHER) * colour
    if band is not None:
        hair = np.maximum(hair, ramp(dark, *BAND_DARKER) * band)
    return (cv2.GaussianBlur(hair, (0, 0), SOFT_PX * scale) * lower).astype(np.float32)


def _saturation(bgr: F32) -> F32:
    """HSV saturation, 0..1: 1 − min/max of the channels (per-channel views: numpy's
    reduction over a last axis of 3 cost ~3 ms a frame here)."""
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    high = np.maximum(np.maximum(b, g), r)
    low = np.minimum(np.minimum(b, g), r)
    return (1.0 - low / np.maximum(high, 1.0)).astype(np.float32)


def blur_on(values: F32, weight: F32, sigma: float) -> F32:
    """`values` (H×W or H×W×C) Gaussian-averaged over where `weight` (H×W, 0/1) is."""
    weighted = values * (weight[..., None] if values.ndim == 3 else weight)
    total = cv2.GaussianBlur(weighted, (0, 0), sigma)
    norm = np.maximum(cv2.GaussianBlur(weight, (0, 0), sigma), 1e-3)
    return total / (norm[..., None] if values.ndim == 3 else norm)


def ramp(value: F32, lo: float, hi: float) -> F32:
    return np.clip((value - lo) / (hi - lo), 0.0, 1.0).astype(np.float32)
