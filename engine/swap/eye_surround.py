"""The skin round the eyes departs from the face's light no further than the user's.

A source photo's lids and the skin under its eyes carry its make-up and its light: a
white or coloured eye shadow (anon_inspireface_1423_1's white lids), dark rings, the
lashes of a lowered eye landing beyond the user's own lid margin as a dark ring. The
eyes step keeps the target's own lid margin (engine/swap/eyes.py, out to 0.18 eye
widths), and departures are evened on the plain skin when the identity is built
(engine/swap/departures.py), but the lids' fold and the skin under the eyes kept the
source photo's lightness and colour at the scale of a few millimetres. Here, over
that surround (not the brows, not the eye openings), each pixel's log departure from
the render's broad light (coarser than `BROAD`) is held between nil and the target's
own departure there, widened by `LIMIT`: a departure the source shares with the user
stays, one that goes past the user's shrinks to that bound, and the user's own marks
(its rings, its make-up) are not brought in: taking the target's departures both ways
gave its purple under-eye to every source on anon_inspireface_2963_1 and dark rims
on 1423_1. On the brows only what is lighter than the user's there is held, in
lightness: a white line or a pale band along a source's brow goes, its brows keep
their darkness (docs/swap.md, "Your own eye surround").
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from numba import njit

from engine.core.types import F32
from engine.face.mesh import topology
from engine.swap import mix
from engine.swap.own_colour import BROW_GROW
from engine.swap.shading import BROWS, LUMA, uv_feature_mask
from engine.swap.vertex_box import vertex_box

# Texture widths (an eye is 0.14 wide): the eyes' outlines grown this far make the
# zone (about 0.45 eye widths: the lid's fold, the skin under the eye), soft-edged.
ZONE_GROW = 0.06
ZONE_SOFT = 0.012
BROAD = 0.15  # IOD: the face's broad light round the eyes, which the departure is from
LIMIT = (0.08, 0.03)  # log: the largest departure kept beyond the target's, in
# lightness (BT.601 luma, every channel alike) and in colour (the rest)
ZONE_EMPTY = 0.01  # below this the zone is off: the step's work ends there
_SHRINK = 3.0  # the broad light is blurred on a grid whose pixel is BROAD / _SHRINK
# IOD: how far past the mesh's eye outlines the box reaches (the zone reaches about
# 0.28 IOD; the broad light reads twice its sigma beyond).
MARGIN_IOD = 0.35 + 2 * BROAD


@lru_cache(maxsize=2)
def surround_zone(size: int) -> F32:
    """size×size×2, 0..1 over the texture square: round both eyes, not over the brows
    (the whole hold); the brows (only what is lighter than the target's held)."""
    topo = topology()
    uv = topo.uv.astype(np.float32)
    hulls = [
        cv2.convexHull(uv[topo.region(name)]).reshape(-1, 2) for name in ("left_eye", "right_eye")
    ]
    zone = uv_feature_mask(size, hulls, grow=ZONE_GROW)
    zone = cv2.GaussianBlur(zone, (0, 0), ZONE_SOFT * size)
    brows = uv_feature_mask(size, [uv[list(b)] for b in BROWS], grow=BROW_GROW)
    brows = cv2.GaussianBlur(brows, (0, 0), ZONE_SOFT * size)
    both = np.dstack([zone * (1.0 - brows), brows]).astype(np.float32)
    # The blurs' faint tails cut: under 1 % of the hold is not seen, and every pixel
    # the zone touches costs the per-pixel logs (most of the step's time).
    both[both < ZONE_EMPTY] = 0.0
    return both


def eye_ids() -> list[int]:
    topo = topology()
    return [int(i) for name in ("left_eye", "right_eye") for i in topo.region(name)]


def surround_box(points: F32, shape: tuple[int, int], iod: float) -> tuple[slice, slice] | None:
    """(rows, cols) of the grid (`shape`) the step works on: the posed eyes (`points`,
    468×2 on the grid) with `MARGIN_IOD` round them; None when off the grid."""
    return vertex_box(points, eye_ids(), shape, MARGIN_IOD * iod, least=4)


def _broad_logs(image: F32, own: F32, weight: F32, sigma: float) -> tuple[F32, F32]:
    """The logs of `image` and of `own` blurred by `sigma` pixels
    over `weight` only, at the box's size. Blurred on a grid whose pixel is sigma /
    `_SHRINK` (the broad light has no detail to lose there; at full size the blurs
    were most of the step's cost). Where the weight is nil all round, a grey of 1
    (the zone is nil there too)."""
    height, width = weight.shape
    step = max(1, int(sigma / _SHRINK))
    # Whole coarse pixels only: an area resize by a whole factor is the fast one. The
    # rows and columns past the last whole one are left out of the blur, and the coarse
    # grid is stretched over them on the way back: the light shifts by at most
    # step - 1 pixels (3 at the working size) at the box's far edge, on a light
    # blurred by 12.
    rows, cols = max(1, height // step), max(1, width // step)
    cut = slice(0, rows * step), slice(0, cols * step)

    def shrunk_blur(layer: F32) -> F32:
        small = cv2.resize(layer[cut], (cols, rows), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (0, 0), sigma / step)

    norm = 1.0 / np.maximum(shrunk_blur(weight), 1e-4)[..., None]
    levels = []
    for weighted in (mix.scaled(image, weight), mix.scaled(own, weight)):
        level = np.log(np.maximum(shrunk_blur(weighted) * norm, 1.0))
        levels.append(cv2.resize(level, (width, height), interpolation=cv2.INTER_LINEAR))
    return levels[0], levels[1]


@njit(cache=True, nogil=True)
def _soft_below(
    mine: np.float32, theirs: np.float32, limit: np.float32
) -> np.float32:  # pragma: no cover - compiled
    """`mine` (a log departure) held, softly, under the larger of nil and the target's
    (`theirs`), widened by `limit`: past it, it shrinks toward that bound (over `limit`
    / 2)."""
    soft = limit * np.float32(0.5)
    hi = np.maximum(theirs, np.float32(0.0)) + limit
    if mine > hi:
        return hi + soft * np.tanh((mine - hi) / soft)
    return mine


@njit(cache=True, nogil=True)
def _soft_within(
    mine: np.float32, theirs: np.float32, limit: np.float32
) -> np.float32:  # pragma: no cover - compiled
    """`mine` held, softly, between the target's departure (`theirs`) and nil, widened
    by `limit` each way (`_soft_below` both ways): a departure of the render's own
    size or less stays, one that goes past the target's in either direction shrinks
    toward that bound, and the target's own departures are not brought in."""
    return -_soft_below(-_soft_below(mine, theirs, limit), -theirs, limit)


@njit(cache=True, nogil=True)
def _hold(
    image: F32,
    own: F32,
    ours_level: F32,
    theirs_level: F32,
    zone: F32,
    rows: tuple[int, int],
    cols: tuple[int, int],
    grey_limit: float,
    colour_limit: float,
) -> None:  # pragma: no cover - compiled
    """`image` × exp(held − ours) per pixel of `rows` × `cols` (first, past-the-end),
    in place: ours and theirs the log departures of `image` and `own` from their
    broad levels (`_broad_logs`), split into lightness (BT.601 luma, every channel
    alike) and colour (the rest). As far as `zone`'s first channel, each is held by
    `_soft_within`; as far as its second, the lightness by `_soft_below` only. In
    float32 throughout."""
    channels = image.shape[2]
    ours = np.empty(channels, np.float32)
    theirs = np.empty(channels, np.float32)
    one = np.float32(1.0)
    grey_at = np.float32(grey_limit)
    colour_at = np.float32(colour_limit)
    luma = LUMA.astype(np.float32)
    for y in range(rows[0], rows[1]):
        for x in range(cols[0], cols[1]):
            z = zone[y, x, 0]
            light = zone[y, x, 1]
            if z <= 0.0 and light <= 0.0:
                continue
            grey_ours = np.float32(0.0)
            grey_theirs = np.float32(0.0)
            for c in range(channels):
                ours[c] = np.log(max(image[y, x, c], one)) - ours_level[y, x, c]
                theirs[c] = np.log(max(own[y, x, c], one)) - theirs_level[y, x, c]
                grey_ours += luma[c] * ours[c]
                grey_theirs += luma[c] * theirs[c]
            grey = _soft_within(grey_ours, grey_theirs, grey_at)
            # The brows keep their darkness (the source's brows are much of who it
            # is): only a departure lighter than the target's is held there.
            lit = _soft_below(grey_ours, grey_theirs, grey_at)
            for c in range(channels):
                colour = _soft_within(ours[c] - grey_ours, theirs[c] - grey_theirs, colour_at)
                image[y, x, c] *= np.exp((grey + colour - ours[c]) * z + (lit - grey_ours) * light)


def own_surround(image: F32, own: F32, zone: F32, weight: F32, iod: float) -> F32 | None:
    """`image` (the render) with its departures round the eyes held to the target's
    (`own`, same grid; `_hold`); `zone` H×W×2, 0..1 (`surround_zone` on the same
    pixels), `weight` the pixels the broad light is read from (the face, not its eye
    openings). A copy; None where the zone is empty."""
    # (A max over a last axis two long is a slow NumPy reduction: 0.6 ms here.)
    reach = np.maximum(zone[..., 0], zone[..., 1])
    rows = np.flatnonzero(reach.max(axis=1) > ZONE_EMPTY)
    cols = np.flatnonzero(reach.max(axis=0) > ZONE_EMPTY)
    if rows.size == 0 or cols.size == 0:
        return None
    # Whole C-ordered arrays and the zone's bounds: the kernels then see one array
    # layout whatever the box (a new layout compiles, or loads, a new kernel: 6 ms on a
    # frame mid-clip).
    out = np.array(image, dtype=np.float32, order="C")
    mine = np.ascontiguousarray(own, dtype=np.float32)
    ours, theirs = _broad_logs(
        out, mine, np.ascontiguousarray(weight, dtype=np.float32), BROAD * iod
    )
    _hold(
        out,
        mine,
        ours,
        theirs,
        np.ascontiguousarray(zone, dtype=np.float32),
        (int(rows[0]), int(rows[-1]) + 1),
        (int(cols[0]), int(cols[-1]) + 1),
        LIMIT[0],
        LIMIT[1],
    )
    return out
