"""The target's own specular highlights (a lamp's or the sun's shine on the nose tip,
the forehead, a cheekbone) kept on the new face.

A highlight is light, and the light is the target's: the new face's skin is the
source's albedo in the target's smooth light, which has no highlight (the light field
is fitted to the skin with glare weighted out), so the shine was lost. Worse, the
compositor keeps the frame's own fine detail on plain skin, which holds a highlight's
sharp rim but not its body: a clipped nose tip came out as a grey blob outlined in
light and dark (anon_dflw_038_1). Here a highlight is found on the target's plain skin
as what is lighter than the render there (the target's diffuse light on the source's
skin) and much paler: light reflected off the surface has the lamp's colour, not the
skin's, so paleness decides (a clipped spot on pale skin is only 1.1-1.3 times the
skin's lightness). Skin that a hard light makes brighter but that keeps its colour is
left to the light field: taking the target's own pixels there too cost identity
(ID@1 -4 points) and, by eye, left pale patches on a pale painted face (docs/swap.md).
There the new face shows the target's own pixels, the highlight's rim (lighter alone)
faded in.
"""

from __future__ import annotations

import cv2
import numpy as np
from numba import njit

from engine.core.types import F32

BRIGHT = (1.1, 1.25)  # the target's lightness over the render's: none → full
PALE = (0.6, 0.35)  # the target's saturation over the render's: none → full
RIM = (1.05, 1.15)  # lightness ratio: the rim a highlight is grown over
OPEN_IOD = 0.02  # a highlight is a region: specks narrower than this are not
GROW_IOD = 0.04  # the rim: grown over what is bright alone, then softened
SOFT_IOD = 0.015


def glare(own: F32, image: F32, plain: F32, iod: float) -> F32 | None:
    """H×W, 0..1: where the target (`own`, on the render's grid) shines on its plain
    skin (`plain`, 0..1) and the render (`image`) does not; None where it shines
    nowhere (most frames: the caller then blends nothing). `iod`: the inter-ocular
    distance on the grid."""
    rim, like = _glare_like(own, image, plain, *RIM, *BRIGHT, *PALE)
    core = cv2.morphologyEx(like, cv2.MORPH_OPEN, _disk(max(1, round(OPEN_IOD * iod / 2))))
    if not core.any():
        return None
    # Grown over what is lighter round it: a highlight's rim keeps more of the skin's
    # colour than its core, and left out it is the outline this step is for.
    grown = np.maximum(core, cv2.dilate(core, _disk(max(1, round(GROW_IOD * iod)))) * rim)
    soft = cv2.GaussianBlur(grown, (0, 0), max(0.7, SOFT_IOD * iod))
    return np.maximum(soft, grown)


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


@njit(cache=True, nogil=True, fastmath=True)
def _glare_like(
    own: F32,
    image: F32,
    plain: F32,
    rim_none: float,
    rim_full: float,
    bright_none: float,
    bright_full: float,
    pale_none: float,
    pale_full: float,
) -> tuple[F32, F32]:  # pragma: no cover - compiled
    """(rim, like), H×W in 0..1, on `plain` skin (its weight): how much lighter than
    `image` the target `own` is (their lumas' ratio ramped over `rim_*`), and how like
    a highlight (the ratio ramped over `bright_*`, times how much paler it is: their HSV
    saturations' ratio ramped over `pale_*`). One pass: in NumPy the lumas,
    saturations, ratios and ramps took ten temporaries and ~0.8 ms on a 720p face."""
    height, width = plain.shape
    wb, wg, wr = np.float32(0.114), np.float32(0.587), np.float32(0.299)
    zero, one, least = np.float32(0.0), np.float32(1.0), np.float32(0.02)
    r_none, r_scale = np.float32(rim_none), np.float32(1.0 / (rim_full - rim_none))
    b_none, b_scale = np.float32(bright_none), np.float32(1.0 / (bright_full - bright_none))
    p_none, p_scale = np.float32(pale_none), np.float32(1.0 / (pale_full - pale_none))
    rim = np.zeros((height, width), np.float32)
    like = np.zeros((height, width), np.float32)
    for y in range(height):
        for x in range(width):
            p = plain[y, x]
            if p <= zero:
                continue
            ob, og, orr = own[y, x, 0], own[y, x, 1], own[y, x, 2]
            ib, ig, ir = image[y, x, 0], image[y, x, 1], image[y, x, 2]
            own_luma = wb * ob + wg * og + wr * orr
            image_luma = max(wb * ib + wg * ig + wr * ir, one)
            if own_luma <= r_none * image_luma:  # the common case, without a division
                continue
            lighter = own_luma / image_luma
            rim[y, x] = min(max((lighter - r_none) * r_scale, zero), one) * p
            b = min(max((lighter - b_none) * b_scale, zero), one) * p
            if b <= zero:
                continue
            own_sat = one - min(ob, og, orr) / max(ob, og, orr, one)
            image_sat = one - min(ib, ig, ir) / max(ib, ig, ir, one)
            paler = own_sat / max(image_sat, least)
            pale = min(max((paler - p_none) * p_scale, zero), one)
            like[y, x] = b * pale
    return rim, like
