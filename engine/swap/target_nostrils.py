"""The target's own nostrils kept on the new face.

A nostril is a hole in the user's nose, dark by the user's own light and pose; the
source photo's nostrils are its photo's light, evened away with its other departures
(engine/swap/departures.py: kept at full contrast they sat where the target's nose
casts none). The compositor keeps the frame's own fine detail on plain skin, which
holds a nostril's sharp edge but not its dark body: on pale targets each nostril came
out as a pale disc outlined in dark and orange-red (anon_inspireface_sad_1 under
obama_2 and biden_2). Here, over the lower nose only (its alae, nostrils and
columella, from the mesh), where the target is much darker than its own surroundings
(a hole, not a crease), the render's structure finer than `SCALE_IOD` is replaced by
the target's: the render's smoothed colour times the target's pixels over their
smoothed selves, so a nostril is as dark as the user's, in the new skin's colour.
The rest of the lower nose (the alae's outline, their creases) stays the source's:
taking all of it too cost identity and, by eye, gave the target's nose back
(docs/swap.md, "Your own nostrils").
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from engine.core.types import F32
from engine.face.mesh import topology
from engine.swap import mix
from engine.swap.shading import LUMA, uv_feature_mask
from engine.swap.vertex_box import vertex_box

# MediaPipe mesh vertices of the subject's right lower nose: the ala and its crease
# (98, 64, 218), the nostril's rim (75, 60, 20, 242, 166, 79, 238, 239, 241) and the
# columella's side and the tip's underside (237, 44, 125, 141, 97). The left side is
# their mirror.
LOWER_NOSE = (98, 64, 218, 237, 44, 125, 141, 97, 60, 75, 166, 79, 20, 242, 238, 239, 241)
ZONE_GROW = 0.01  # of the texture's width: the hull grown a little past the rim
ZONE_SOFT = 0.008  # of the texture's width: the zone's soft edge
SCALE_IOD = 0.05  # structure finer than this is the target's (a nostril is ~0.08 IOD)
HOLE = (0.85, 0.6)  # the target's lightness over its smoothed self: no hole → a hole
HOLE_GROW_IOD = 0.02  # a hole's rim: grown over it, then softened
HOLE_SOFT_IOD = 0.01
DARKEST = 0.15  # per channel, the least of the target's pixel over its smoothed self
LIGHTEST = 1.3  # and the most (a glint on the rim)
# IOD: how far past the mesh's lower-nose vertices the work reaches (the zone's grown,
# soft edge, then the blurs' reach).
MARGIN_IOD = 0.12 + 3 * SCALE_IOD


@lru_cache(maxsize=2)
def nostril_zone(size: int) -> F32:
    """size×size, 0..1 over the texture square: both sides' lower nose, soft-edged."""
    polygons = [cv2.convexHull(points).reshape(-1, 2) for points in _lower_nose_uv()]
    zone = uv_feature_mask(size, polygons, grow=ZONE_GROW)
    return cv2.GaussianBlur(zone, (0, 0), ZONE_SOFT * size)


def lower_nose_ids() -> list[int]:
    """Both sides' lower-nose mesh vertices."""
    mirror = topology().mirror
    return [*LOWER_NOSE, *(int(mirror[i]) for i in LOWER_NOSE)]


def _lower_nose_uv() -> list[F32]:
    uv = topology().uv
    ids = lower_nose_ids()
    half = len(LOWER_NOSE)
    return [uv[ids[:half]].astype(np.float32), uv[ids[half:]].astype(np.float32)]


def lower_nose_box(points: F32, shape: tuple[int, int], iod: float) -> tuple[slice, slice] | None:
    """(rows, cols) of the grid (`shape`) the step works on: the posed mesh's lower-nose
    vertices (`points`, 468×2 on the grid) with `MARGIN_IOD` round them; None when that
    is off the grid."""
    return vertex_box(points, lower_nose_ids(), shape, MARGIN_IOD * iod)


def own_nostrils(own: F32, image: F32, zone: F32, iod: float) -> F32 | None:
    """`image` (the render's lower nose, H×W×3) with, where `zone` (H×W, 0..1:
    `nostril_zone` on the same pixels) has a hole in the target (`own`, on the same
    pixels), its structure finer than `SCALE_IOD` replaced by the target's; None when
    there is none. `iod`: the inter-ocular distance on the grid."""
    if not zone.any():
        return None
    sigma = max(0.7, SCALE_IOD * iod)
    least = np.float32(1e-3)
    # The holes are found on the lightness alone: colour's blurs only where there are.
    grey = cv2.transform(own, LUMA[None])
    dark = (HOLE[0] - (grey + least) / (_blur(grey, sigma) + least)) / (HOLE[0] - HOLE[1])
    dark = np.clip(dark, 0.0, 1.0) * (zone > 0)
    if not dark.any():
        return None
    grow = max(1, round(HOLE_GROW_IOD * iod))
    dark = cv2.dilate(dark, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1,) * 2))
    weight = zone * _blur(dark, max(0.7, HOLE_SOFT_IOD * iod))
    detail = (own + least) / (_blur(own, sigma) + least)
    new = _blur(image, sigma) * np.clip(detail, DARKEST, LIGHTEST)
    return mix.towards(np.ascontiguousarray(image, dtype=np.float32), new, weight)


def _blur(values: F32, sigma: float) -> F32:
    """Gaussian blur cut at 3 sigma (OpenCV's own cut for float images is 4, a third
    more taps for weights under 0.3 %)."""
    size = 2 * int(np.ceil(3 * sigma)) + 1
    return cv2.GaussianBlur(values, (size, size), sigma)
