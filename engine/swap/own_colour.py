"""The lips and brows take the target's own colour: the source photo's lipstick, brow
make-up and colour casts do not ride along.

The features kept the source photo's colour against its skin. So a source's red
lipstick or bright pink lips came out on every target, on a smiling target as a painted
rim round its teeth (anon_inspireface_1561_1's lipstick, anon_inspireface_2963_1's pink
lips onto alex_lacamoire_1), and dark brows came out navy or purple on a paler target
(obama_2 and robert_downey_jr_2 onto anon_inspireface_sad_1): the per-channel contrast
of a dark feature to a warm skin, put over a cooler skin, turns blue. Lip and brow
colour are make-up, hair colour and the photo's light as much as who someone is, and a
viewer knows the user's. Their hue and saturation become the target's on the same
mesh points, held near the target's typical colour of that feature. The brows' shape,
lines and shading (lightness) stay the source's; the lips take the target's lightness
too (their outline is the mesh's, on the target's lips). Measured in docs/swap.md
("Your own lip and brow colour", "... and your own lips' lightness").
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from numba import njit
from numpy.typing import NDArray

from engine.core.types import F32
from engine.face.mesh import topology
from engine.render.polygon import polygon_mask
from engine.swap.shading import BROWS, LUMA, uv_feature_mask

SHARE = 1.0
MASK_SIZE = 128
# The lips' edge in the texture, in texture widths: softened over this, so the colour
# change has no line at their outline. The brows are grown by BROW_GROW (the hairs
# reach past the mesh's brow line) and softened twice as far.
SOFT = 0.006
BROW_GROW = 0.02
# A pixel's colour (BGR over its luma) is held within SPREAD of the feature's median:
# at the lips' edge the target's colour there can be the grey-blue of the shadow under
# the lower lip, which over a dark render read as a bruise.
SPREAD = 0.05
# The median is taken where the mask is surely the feature.
SURE = 0.9
MIN_SURE = 20
LIPS, BROWS_CHANNEL = 0, 1
# Each feature's mask channel and how far it moves to the target's own lightness where
# the target's is darker, and where it is lighter. The lips fully, both ways: the lips'
# lightness is the user's (a lipstick user's red stays red, not a coral at the source's
# paler lightness; a pale source lip on a darker-lipped user looked painted; a dark
# source lip on a paler-lipped user came out brown, smeared and outlined). The brows
# not: the darker of the two brows took away light-browed sources' silver brows on
# black-browed users, but ID@1 fell 48.9 -> 28.5 % (docs/swap.md).
FEATURES = ((LIPS, 1.0, 1.0), (BROWS_CHANNEL, 0.0, 0.0))


@lru_cache(maxsize=1)
def regions() -> F32:
    """MASK_SIZE²×2 texture-space masks, 0..1: the lips' red (outside the mouth's
    opening), the brows."""
    topo = topology()
    uv = topo.uv.astype(np.float32)
    shape = (MASK_SIZE, MASK_SIZE)
    outer = polygon_mask([uv[topo.region("lips_outer")] * MASK_SIZE], shape)
    inner = polygon_mask([uv[topo.region("lips_inner")] * MASK_SIZE], shape)
    lips = cv2.GaussianBlur(np.clip(outer - inner, 0.0, 1.0), (0, 0), SOFT * MASK_SIZE)
    brows = uv_feature_mask(MASK_SIZE, [uv[list(b)] for b in BROWS], grow=BROW_GROW)
    brows = cv2.GaussianBlur(brows, (0, 0), 2 * SOFT * MASK_SIZE)
    return np.dstack([lips, brows]).astype(np.float32)


def own_colour(
    image: F32,
    own: F32,
    where: F32,
    share: float = SHARE,
    spread: float = SPREAD,
    covered: NDArray[np.bool_] | None = None,
    darken: float = 0.0,
    lighten: float = 0.0,
) -> F32:
    """`image` (the render, BGR 0..255 on the working grid) with one feature's colour
    (`where`: its mask looked up on the grid, 0..1; only where `covered`, if given)
    moved `share` of the way to `own`'s (the target on the same grid), pixel by pixel,
    at the render's own lightness. Unchanged where the feature is too small to have a
    typical colour (a far face). `darken` and `lighten`: how far the render's lightness
    moves to the target's where the target's is darker, and where it is lighter (0:
    the render's lightness everywhere).

    Two compiled passes (the feature's median colour, then its pixels): in NumPy the
    few thousand brow pixels' temporaries took 0.5 ms a frame."""
    if share <= 0.0:
        return image
    own = np.ascontiguousarray(own, dtype=np.float32)
    where = np.ascontiguousarray(where, dtype=np.float32)
    covered = np.ones(where.shape, np.bool_) if covered is None else np.ascontiguousarray(covered)
    typical = _typical(own, where, covered, LUMA, SURE, MIN_SURE)
    if typical is None:
        return image
    out = np.array(image, dtype=np.float32, copy=True)
    _recolour(
        out,
        own,
        where,
        covered,
        LUMA,
        typical,
        np.float32(share),
        np.float32(spread),
        darken,
        lighten,
    )
    return out


@njit(cache=True, nogil=True, inline="always")
def _level(pixel: F32, luma: F32) -> float:  # pragma: no cover - compiled
    return float(pixel[0] * luma[0] + pixel[1] * luma[1] + pixel[2] * luma[2])


@njit(cache=True, nogil=True)
def _typical(
    own: F32, where: F32, covered: NDArray[np.bool_], luma: F32, sure: float, min_sure: int
) -> F32 | None:  # pragma: no cover - compiled
    """The median of the target's colour (BGR over its luma: 1, 1, 1 is grey) where the
    mask is surely the feature; None with fewer than `min_sure` such pixels."""
    height, width = where.shape
    inside = covered & (where > sure)
    found = int(inside.sum())
    if found < min_sure:
        return None
    samples = np.empty((3, found), np.float32)
    k = 0
    for y in range(height):
        for x in range(width):
            if inside[y, x]:
                level = max(_level(own[y, x], luma), 1.0)
                for c in range(3):
                    samples[c, k] = own[y, x, c] / level
                k += 1
    typical = np.empty(3, np.float32)
    for c in range(3):
        typical[c] = np.median(samples[c])
    return typical


@njit(cache=True, nogil=True)
def _recolour(
    out: F32,
    own: F32,
    where: F32,
    covered: NDArray[np.bool_],
    luma: F32,
    typical: F32,
    share: np.float32,
    spread: np.float32,
    darken: float = 0.0,
    lighten: float = 0.0,
) -> None:  # pragma: no cover - compiled
    """`own_colour`'s change, in place on `out`, where the mask reaches."""
    height, width = where.shape
    colour = np.empty(3, np.float32)
    for y in range(height):
        for x in range(width):
            weight = where[y, x]
            if weight <= 0.0 or not covered[y, x]:
                continue
            theirs_level = max(_level(own[y, x], luma), 1.0)
            # Held near the feature's median colour: a dark pixel's colour is a few grey
            # levels of noise or a shadow's blue, and a dark red line between the lips,
            # taken as it is and lit to a lighter render, asked for red past 255.
            norm = 0.0
            for c in range(3):
                colour[c] = min(
                    max(own[y, x, c] / theirs_level, typical[c] - spread), typical[c] + spread
                )
                norm += colour[c] * luma[c]
            norm = max(norm, 1e-3)
            # At the render's lightness. Where the render is darker than the target
            # there, the colour is the target's at that lightness (its saturation kept).
            # Where it is lighter, the colour's strength grows with the geometric mean of
            # the two lightnesses: kept at the target's own (a dark brow's colour over a
            # lighter brow), the brows came out silver, and grey brows beside warm skin
            # read blue; grown with the render's, a red lipstick over a lighter render
            # glowed coral. (The render can dip a little below 0: no root of that.) The
            # lips first take the target's lightness (FEATURES).
            ours_level = max(_level(out[y, x], luma), 0.0)
            if theirs_level < ours_level:
                ours_level += darken * (theirs_level - ours_level)
            else:
                ours_level += lighten * (theirs_level - ours_level)
            strength = min(ours_level, np.sqrt(ours_level * theirs_level))
            amount = share * weight
            for c in range(3):
                coloured = min(max(ours_level + strength * (colour[c] / norm - 1.0), 0.0), 255.0)
                out[y, x, c] += amount * (coloured - out[y, x, c])
