"""The eyes follow the target: its lids' opening and its gaze (`show_eyes`).

A source photo's eye is one moment of that person: its lids as open as they were, its
iris where it looked. Mapped onto the target's mesh like the rest of the face, its
eyeball is squeezed into the target's opening: a blink shows a flattened open eye, not
a closed lid, and the gaze stays the photo's. What shows between the lids therefore
depends on `swap.eyes`:
- "yours" (default): the target's own eyeball, in the source's iris colour, and its
  own lid margin round it (lashes, lid line: `show_own_eyes`); its blinks and gaze are
  the user's by construction, and a source's eyeliner or lid make-up does not ride
  along.
- "photo": the source's eye as mapped, between the target's lids.
- "photo_following": the source's eye as an eyeball behind the lids (`eyeball`: once,
  from its texture, the iris is found and completed where the photo's lids hid it; the
  rest the sclera's colour), placed every frame, unsqueezed, with its iris where the
  target's is (the iris model, engine/face/iris.py; `paint_eyeballs`).
Beyond that the lids are the source's, on the target's refined lid contour (pushed a
little past it against the source's opening: engine/swap/lids.py), and in every mode a
shut target eye shows the target's own shut lid (`close_lids`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.median import channel_median
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import EyesMode
from engine.core.types import F32
from engine.face.analyzer import REFINE_EYE_PX
from engine.face.mesh import topology
from engine.render.polygon import polygon_mask
from engine.swap.lids import LIDS
from engine.swap.shading import LUMA

IRIS_RADIUS = 0.21  # iris radius over the eye's width (corner to corner); ~11.7 mm of ~28
BINS = 8
# The sclera's fill: its lighter part (the median was dull grey: the corners and the
# lids' shadow lie on it).
SCLERA_PCT = 75
EDGE = 1.15  # the profile reaches this far out (radii): the limbal ring's outer edge
# With your own eyes, eye widths from the opening: the target's own lid margin (its
# lashes, lid line and the lid's fold) shows fully out to the first, fading out by the
# second. It takes `LID_SHARE` (in log terms) of the colour change from the target's
# lid skin to the render's between `LID_SKIN`: the render lacks most of the target's
# socket shading there (measured 1.3-2× lighter on squinting targets), and the full
# change lit the target's lower lid and sclera into a white-yellow crescent.
LID_MARGIN = (0.06, 0.18)
LID_SKIN = (0.18, 0.27)
LID_SHARE = 0.5


@dataclass(frozen=True)
class Eye:
    corners: tuple[int, int]  # mesh ids of the eye's two corners
    contour: tuple[int, ...]  # mesh ids of the lid margin, around the opening


@lru_cache(maxsize=1)
def eyes() -> tuple[Eye, Eye]:
    topo = topology()
    return (
        Eye((33, 133), tuple(int(i) for i in topo.regions["right_eye"])),
        Eye((362, 263), tuple(int(i) for i in topo.regions["left_eye"])),
    )


def _disk(radius: float) -> NDArray[np.float32]:
    r = max(1, round(radius))
    y, x = np.mgrid[-r : r + 1, -r : r + 1]
    return ((x * x + y * y) <= radius * radius).astype(np.float32)


def find_iris(image: F32, opening: F32, radius: float) -> tuple[float, float] | None:
    """Centre (x, y) of the iris in `image` (h×w×3 BGR) inside the eye `opening` (h×w,
    0..1): the disk of `radius` px holding the most darkness against the opening's
    sclera. None when too little of the opening is seen to tell."""
    seen = opening > 0.5
    if seen.sum() < max(4.0, 0.3 * np.pi * radius * radius):
        return None
    lum = image @ LUMA
    sclera = float(np.percentile(lum[seen], 85))
    darkness = np.clip(1.0 - lum / max(sclera, 1.0), 0.0, 1.0) * opening
    # A dark disk on a lighter ring: the lash line along the upper lid is dark too, but
    # long and thin, and the ring term keeps it from pulling the centre onto the lid.
    disk = _disk(radius)
    ring = _disk(1.6 * radius)
    pad = (ring.shape[0] - disk.shape[0]) // 2
    ring[pad : pad + disk.shape[0], pad : pad + disk.shape[1]] -= disk
    kernel = np.pad(disk, pad) / disk.sum() - 0.5 * ring / max(ring.sum(), 1.0)
    score = cv2.filter2D(darkness.astype(np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT)
    score = np.where(opening > 0.25, score, -np.inf)
    yy, xx = np.unravel_index(int(np.argmax(score)), score.shape)
    y, x = int(yy), int(xx)
    if not np.isfinite(score[y, x]) or score[y, x] <= 0.05:
        return None
    # Sub-pixel: the parabola through the peak and its neighbours, per axis.
    return x + _vertex(score, y, x, 1), y + _vertex(score, y, x, 0)


def _vertex(score: np.ndarray, y: int, x: int, axis: int) -> float:
    idx = (y, x)
    lo = list(idx)
    hi = list(idx)
    lo[axis] -= 1
    hi[axis] += 1
    if min(lo) < 0 or hi[axis] >= score.shape[axis]:
        return 0.0
    a, b, c = score[tuple(lo)], score[idx], score[tuple(hi)]
    if not (np.isfinite(a) and np.isfinite(c)):
        return 0.0
    den = a - 2 * b + c
    return float(np.clip(0.5 * (a - c) / den, -0.5, 0.5)) if den < 0 else 0.0


def _radii(shape: tuple[int, int], centre: tuple[float, float], radius: float) -> F32:
    """Each pixel's distance from `centre` (x, y) in radii. (From a row and a column
    broadcast against each other: a full grid of each costs more than the distances.)"""
    y = np.arange(shape[0], dtype=np.float32)[:, None]
    x = np.arange(shape[1], dtype=np.float32)[None, :]
    return np.hypot(x - centre[0], y - centre[1]) / max(radius, 1e-3)


def iris_profile(
    image: F32, opening: F32, centre: tuple[float, float], radius: float
) -> F32 | None:
    """BINS×3 median colours of `image` over rings around `centre` (in radii, 0..1),
    from what the opening shows; rings hidden under the lids take their neighbour's."""
    t = _radii(opening.shape, centre, radius)
    seen = opening > 0.7
    bins = np.minimum((t * BINS).astype(np.int32), BINS)
    colours = np.full((BINS, 3), np.nan, np.float32)
    for k in range(BINS):
        here = seen & (bins == k)
        if here.sum() >= 3:
            colours[k] = np.median(image[here], axis=0)
    known = np.flatnonzero(~np.isnan(colours[:, 0]))
    if len(known) == 0:
        return None
    for k in range(BINS):
        if np.isnan(colours[k, 0]):
            colours[k] = colours[known[np.argmin(np.abs(known - k))]]
    return colours


@dataclass(frozen=True)
class Eyeball:
    """One eye of the source in texture space, as an eyeball the lids can slide over:
    inside the source's opening its own pixels; where its lids hid it, the iris
    completed from its radial profile and the rest its sclera's colour."""

    image: F32  # h×w×3 BGR albedo (a crop of the texture)
    origin: tuple[float, float]  # the crop's top-left in texture pixels
    iris: tuple[float, float]  # the iris centre, in crop pixels
    corners: NDArray[np.float32]  # 2×2: the eye's corners, in crop pixels


def eyeball(albedo: F32, eye: Eye) -> Eyeball | None:
    size = albedo.shape[0]
    uv = topology().uv * size
    pts = uv[list(eye.contour)].astype(np.float32)
    width = float(np.linalg.norm(uv[eye.corners[0]] - uv[eye.corners[1]]))
    radius = IRIS_RADIUS * width
    lo = np.floor(pts.min(axis=0) - 1.5 * radius).astype(int)
    hi = np.ceil(pts.max(axis=0) + 1.5 * radius).astype(int)
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, size)
    opening = polygon_mask([pts], (size, size))[lo[1] : hi[1], lo[0] : hi[0]]
    crop = np.ascontiguousarray(albedo[lo[1] : hi[1], lo[0] : hi[0]], dtype=np.float32)
    centre = find_iris(crop, opening, radius)
    if centre is None:
        return None
    profile = iris_profile(crop, opening, centre, radius)
    if profile is None:
        return None
    t = _radii(opening.shape, centre, radius)
    seen = opening > 0.7
    sclera_px = seen & (t > 1.3)
    sclera = (
        np.percentile(crop[sclera_px], SCLERA_PCT, axis=0)
        if sclera_px.sum() >= 3
        else np.percentile(crop[seen].reshape(-1, 3), 85, axis=0)
        if seen.any()
        else profile[-1]
    )
    x = np.clip(t * BINS - 0.5, 0.0, BINS - 1.0)
    k0 = np.floor(x).astype(np.int32)
    k1 = np.minimum(k0 + 1, BINS - 1)
    f = (x - k0)[..., None]
    iris = profile[k0] * (1.0 - f) + profile[k1] * f
    edge = np.clip((EDGE - t) / (EDGE - 1.0), 0.0, 1.0)[..., None]
    filled = sclera + (iris - sclera) * edge
    # The opening's own pixels, eroded a little: at the lid margin they are lashes.
    own = cv2.erode(opening, np.ones((3, 3), np.uint8))[..., None]
    image = filled + (crop - filled) * own
    corners = (uv[list(eye.corners)] - lo).astype(np.float32)
    return Eyeball(image.astype(np.float32), (float(lo[0]), float(lo[1])), centre, corners)


def eye_similarity(
    eyeball: Eyeball, corners: NDArray[np.float32], iris: tuple[float, float] | None
) -> NDArray[np.float64]:
    """2×3 affine taking render pixels to eyeball-crop pixels: the eye's corner line
    onto the source's (scale and turn, never squeezed across it), and the target's iris
    onto the source's; without an iris, the eyes' midpoints onto each other."""
    rot = _corner_similarity(corners, eyeball.corners)[:, :2]
    if iris is None:
        src, dst = (
            corners.astype(np.float64).mean(axis=0),
            eyeball.corners.astype(np.float64).mean(axis=0),
        )
    else:
        src, dst = np.asarray(iris, np.float64), np.asarray(eyeball.iris, np.float64)
    return np.hstack([rot, (dst - rot @ src)[:, None]])


def paint_eyeballs(
    image: F32,
    relit: F32,
    albedo: F32,
    local: F32,
    views: tuple[EyeView | None, ...],
    eyeballs: tuple[Eyeball | None, ...],
) -> None:
    """`image` (the render, h×w×3, in place) with each eye of the source shown as an
    eyeball behind the target's lids. `local` is the posed landmarks on the render's
    grid (the eyes' corners), `views` each eye's opening and iris there (`eye_views`).
    `relit` and `albedo` are the render before any eye work and the source texture it
    looked up: their ratio is the eyes' own light, as apply_light.shade made it.

    The whole opening shows the eyeball: showing the target's own lid where its pixels
    showed none made the corners red and doubled a moved iris (docs/swap.md); a shut
    eye gets its lid from `close_lids`."""
    for eye, ball, view in zip(eyes(), eyeballs, views, strict=True):
        if ball is None or view is None:
            continue
        x0, y0, x1, y1 = view.box
        corners = local[list(eye.corners)].astype(np.float32)
        seen = view.seen
        if not seen.any():
            continue  # shut
        m = eye_similarity(ball, corners - np.array([x0, y0], np.float32), view.iris[:2])
        looked = cv2.warpAffine(
            ball.image,
            m,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        source = albedo[y0:y1, x0:x1][seen]
        light = relit[y0:y1, x0:x1][seen].sum(axis=0) / np.maximum(source.sum(axis=0), 1.0)
        region = image[y0:y1, x0:x1]
        # The opening's edge a little soft, as a lid margin is.
        region += (looked * light - region) * view.edge


@dataclass(frozen=True)
class EyeView:
    """One eye's part of the render's grid, found once for all that is done to it (the
    opening shown, then the lids closed)."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 on the grid (`_eye_box`)
    shown: F32  # the posed opening over the box, 0..1
    ring: NDArray[np.bool_]  # the lids' skin round the opening (`_ring`)
    iris: tuple[float, float, float]  # the iris's centre (in the box's pixels) and radius

    @property
    def seen(self) -> NDArray[np.bool_]:
        return self.shown > 0.5

    @cached_property
    def radii(self) -> F32:
        """h×w: each pixel's distance from the iris's centre, in iris radii."""
        return _radii(self.shown.shape, self.iris[:2], self.iris[2])

    @cached_property
    def edge(self) -> F32:
        """h×w×1: the opening with its edge a little soft, as a lid margin is."""
        return cv2.GaussianBlur(self.shown, (0, 0), 0.7)[..., None]


def eye_views(
    opening: F32, local: F32, irises: F32, shape: tuple[int, ...]
) -> tuple[EyeView | None, ...]:
    """Each eye's `EyeView` (right eye first; None where `_eye_box` finds none), from
    the posed openings (`opening`, h×w), landmarks (`local`) and irises (2×3) on the
    grid (of `shape`)."""
    views: list[EyeView | None] = []
    for eye, iris in zip(eyes(), irises, strict=True):
        box = _eye_box(local, eye, shape)
        if box is None:
            views.append(None)
            continue
        x0, y0, x1, y1 = box
        shown = opening[y0:y1, x0:x1]
        radius = float(iris[2])
        centre = (float(iris[0]) - x0, float(iris[1]) - y0, radius)
        views.append(EyeView(box, shown, _ring(shown, radius), centre))
    return tuple(views)


def _eye_box(local: F32, eye: Eye, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1): an eye's opening on the grid with an iris's margin round it;
    None when the eye is under 3 px wide or off the grid."""
    corners = local[list(eye.corners)]
    width = float(np.linalg.norm(corners[0] - corners[1]))
    if width < 3.0:
        return None
    pts = local[list(eye.contour)]
    # An iris's margin, and room for the lid margin's skin (`_own_lid_margin`).
    margin = max(IRIS_RADIUS * 1.3, LID_SKIN[1]) * width
    x0, y0 = (int(v) for v in np.maximum(np.floor(pts.min(axis=0) - margin), 0))
    x1 = min(int(np.ceil(pts[:, 0].max() + margin)), shape[1])
    y1 = min(int(np.ceil(pts[:, 1].max() + margin)), shape[0])
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    return x0, y0, x1, y1


# How shut the target's eye is, two ways, each a ramp from open to shut: the share of its
# opening whose pixels show no eyeball (in frame pixels: open stills 0.38-0.57, obama_1's
# blinks 0.7-0.8, painted-shut eyes 0.76-1.0; on the coarser working grid open DEV
# stills read 0.64-0.86) and its refined lids' gap over the eye's width (open 0.30-0.38,
# blinks 0.21; obama_1's half-shut squints 0.27-0.31, which the lid now half covers).
# Both must agree: a dark-skinned open eye reads 0.76-0.88 by its pixels, a narrow one
# low by its lids.
SHUT_PIXELS = (0.62, 0.80)
SHUT_GAP = (0.34, 0.22)
LASH_DARKEN = 0.55  # the closed lids' lash line, against the lid skin


def close_lids(
    image: F32,
    own: F32,
    local: F32,
    views: tuple[EyeView | None, ...],
    gaps: tuple[float, float],
) -> list[float]:
    """`image` (the render, in place) with each eye's opening covered by its own lid
    skin as far as the target's eye is shut; returns how far (0..1, right eye first).

    Neither mesh closes its lids fully on a blink (the iris model's stay about 0.2 of
    the eye's width apart), and the source's open eye squeezed between them still reads
    as open, to a viewer and to a landmarker. So where the target's eye is shut, the
    opening shows the target's own shut lid (`_lid_skin`) with a lash line where the
    lids meet. `gaps`: the target's lid gaps over eye width (the lids on the grid, in
    `local`, may have been moved: engine/swap/lids.py); `views`: the eyes on the grid
    (`eye_views`)."""
    amounts = []
    for view, gap, (lower, upper) in zip(views, gaps, LIDS, strict=True):
        if view is None:
            amounts.append(0.0)
            continue
        x0, y0, x1, y1 = view.box
        shown, ring = view.shown, view.ring
        centre, radius = view.iris[:2], view.iris[2]
        visible = visible_eyeball(own[y0:y1, x0:x1], shown, ring, centre, radius, view.radii)
        hidden = 1.0 - float(visible.sum()) / max(float(shown.sum()), 1.0)
        p = local[:, :2]
        amount = min(_between(hidden, *SHUT_PIXELS), _between(gap, *SHUT_GAP))
        amounts.append(amount)
        if amount <= 0.0:
            continue
        region = image[y0:y1, x0:x1]
        lid = _lid_skin(region, own[y0:y1, x0:x1], shown, ring)
        meet = (p[list(lower[1:-1])] + p[list(upper)]) / 2
        line = np.vstack([p[lower[0]], meet, p[lower[-1]]]) - (x0, y0)
        lash = np.zeros(shown.shape, np.uint8)
        width = float(np.linalg.norm(line[-1] - line[0]))
        cv2.polylines(
            lash,
            [np.round(line * 4).astype(np.int32)],
            False,
            255,
            max(1, round(width * 0.05)),
            cv2.LINE_AA,
            2,
        )
        dark = cv2.GaussianBlur(lash.astype(np.float32) / 255.0, (0, 0), 0.6)
        lid *= (1.0 - (1.0 - LASH_DARKEN) * dark)[..., None]
        region += (lid - region) * (view.edge * amount)
    return amounts


EYE_PIGMENT = 0.5  # of the lids' skin-colour change (log terms) the eyeball takes
IRIS_BAND = (0.35, 0.85)  # radii sampled for an iris's colour: out of the pupil and the limbus


@dataclass(frozen=True)
class EyeScene:
    """One render's eyes, all on the render's working grid (h×w)."""

    image: F32  # the render (h×w×3), changed in place
    relit: F32  # the render before any eye work
    albedo: F32  # the source texture it looked up (their ratio is the eyes' light)
    own: F32  # the target on the grid, each pixel from where its mesh point sits
    opening: F32  # 0..1: where the posed eye openings are
    local: F32  # the posed landmarks on the grid
    irises: F32  # 2×3, right eye first: each iris's centre and radius on the grid


def show_eyes(
    mode: EyesMode,
    scene: EyeScene,
    eyeballs: tuple[Eyeball | None, ...],
    iris: F32 | None,
    gaps: tuple[float, float],
    steps: StepTimer = NO_STEPS,
) -> None:
    """What shows between the lids, by `mode` (engine/core/settings.py), then a lid
    over each eye as far as the target's is shut (`close_lids`; `gaps`: the target's).
    `eyeballs` and `iris` (its colour, `iris_colour`) are the source's."""
    with steps.step("open"):
        views = eye_views(scene.opening, scene.local, scene.irises, scene.image.shape)
        if mode == "yours":
            show_own_eyes(scene, views, iris)
        elif mode == "photo_following":
            paint_eyeballs(scene.image, scene.relit, scene.albedo, scene.local, views, eyeballs)
    with steps.step("lids"):
        close_lids(scene.image, scene.own, scene.local, views, gaps)


def show_own_eyes(scene: EyeScene, views: tuple[EyeView | None, ...], colour: F32 | None) -> None:
    """Each eye's opening showing the target's own eyeball (`scene.own`, through the
    mesh: it fills the opening, stretched only as far as lids.YOURS_GAIN moved the
    lids) in the source's iris colour, and its own lid margin round it
    (`_own_lid_margin`): the gaze and the blinks are the user's by construction. The
    eyeball takes half the lid skin's change in colour: an eye shares the light, not
    the skin's pigment (apply_light.eye_gain). `views`: the eyes on the grid
    (`eye_views`)."""
    trust = 0.0 if colour is None else iris_trust(colour)  # one source colour, both eyes
    for eye, view in zip(eyes(), views, strict=True):
        if view is None:
            continue
        x0, y0, x1, y1 = view.box
        seen = view.seen
        if not seen.any():
            continue
        mine = scene.own[y0:y1, x0:x1]
        ring = view.ring
        region = scene.image[y0:y1, x0:x1]
        corners = scene.local[list(eye.corners), :2]
        _own_lid_margin(region, mine, seen, float(np.linalg.norm(corners[0] - corners[1])))
        gain = np.ones(3)
        if ring.sum() >= 5:
            ratio = channel_median(region[ring]) / np.maximum(channel_median(mine[ring]), 1.0)
            gain = np.clip(ratio, 0.25, 4.0) ** EYE_PIGMENT
        eyeball = mine * gain.astype(np.float32)
        if colour is not None and trust > 0.0:
            lit = scene.relit[y0:y1, x0:x1][seen].sum(axis=0) / np.maximum(
                scene.albedo[y0:y1, x0:x1][seen].sum(axis=0), 1.0
            )
            # Held to an iris's colours as shown, in the render's light: what a source's
            # iris band read (its lids, a bloodshot white, its photo's cast), put in
            # the target's light, came out red or mauve (`plausible_iris`).
            shown = plausible_iris((colour * lit).astype(np.float32))
            _recolour_iris(eyeball, seen, view.iris, shown, view.radii, trust)
        region += (eyeball - region) * view.edge


def _own_lid_margin(region: F32, mine: F32, seen: NDArray[np.bool_], width: float) -> None:
    """`region` (the render over one eye's box, in place) with the target's own lid
    margin round the opening (`seen`), brought `LID_SHARE` of the way to the render's
    skin colour: a viewer and a landmarker read an eye's opening from its lid line and
    lashes as much as from the eyeball, and a source's lashes, eyeliner or lid make-up
    round the user's eyeball read as the source's opening (and its make-up). `width`:
    the eye's width (corner to corner) on the grid."""
    # On small eyes the margin is a pixel or two, and the landmarker read the clip's
    # medium shot (eyes 12-19 px wide) as less open with it: faded in as the iris
    # model's lids are (engine/face/analyzer.py).
    strength = float(
        np.clip((width - REFINE_EYE_PX[0]) / (REFINE_EYE_PX[1] - REFINE_EYE_PX[0]), 0, 1)
    )
    if strength <= 0.0 or LID_MARGIN[1] <= 0.0:
        return
    apart = cv2.distanceTransform((~seen).astype(np.uint8), cv2.DIST_L2, 3) / width
    skin = (apart > LID_SKIN[0]) & (apart < LID_SKIN[1])
    if skin.sum() < 5:
        return
    gain = channel_median(region[skin]) / np.maximum(channel_median(mine[skin]), 1.0)
    lid = mine * (np.clip(gain, 0.25, 4.0) ** LID_SHARE).astype(np.float32)
    weight = np.clip((LID_MARGIN[1] - apart) / (LID_MARGIN[1] - LID_MARGIN[0]), 0.0, 1.0)
    weight *= strength
    region += (lid - region) * weight[..., None]


def _corner_similarity(
    out: NDArray[np.floating], into: NDArray[np.floating]
) -> NDArray[np.float64]:
    """2×3 similarity taking the two points `out` onto `into` (scale, turn, shift)."""
    a, b = np.asarray(out, np.float64)
    sa, sb = np.asarray(into, np.float64)
    d, ds = b - a, sb - sa
    scale = float(np.linalg.norm(ds)) / max(float(np.linalg.norm(d)), 1e-6)
    angle = np.arctan2(ds[1], ds[0]) - np.arctan2(d[1], d[0])
    c, s = np.cos(angle) * scale, np.sin(angle) * scale
    rot = np.array([[c, -s], [s, c]])
    return np.hstack([rot, (sa - rot @ a)[:, None]])


def iris_colour(eyeballs: tuple[Eyeball | None, ...]) -> F32 | None:
    """The source's iris colour (BGR albedo), one for both eyes: a person's two irises
    share it, and a squinting, half-hidden or glinting eye reads paler than its iris
    (recoloured eye by eye, one eye came out glassy grey-blue beside a brown one), so
    it is the darker of the two eyes' medians."""
    found = []
    for ball in eyeballs:
        if ball is None:
            continue
        width = float(np.linalg.norm(ball.corners[1] - ball.corners[0]))
        t = _radii(ball.image.shape[:2], ball.iris, IRIS_RADIUS * width)
        band = (t > IRIS_BAND[0]) & (t < IRIS_BAND[1])
        if band.sum() >= 5:
            found.append(np.median(ball.image[band], axis=0).astype(np.float32))
    return min(found, key=lambda c: float(c @ LUMA)) if found else None


# How far a source's iris colour is taken, by its albedo's L* (CIELAB): none below the
# first, all above the second. On the DEV+WIDE sources the irises read L* 8-40; the
# darkest (anon_inspireface_1423_1 3.0, anon_dflw_044_1 4.3, anon_inspireface_2963_1
# 5.1, anon_dflw_047_1 6.0, anon_dflw_077_1 6.9) are mostly what covers the iris:
# lashes and the lid's shadow on a laughing, lowered or made-up eye. Put on a target's
# open eye such a colour came out a black disc round the catchlight, a doll's stare
# (the census's "staring eyes"); lifted to an iris's lightness, its chromaticity kept,
# it came out grey or blue-grey where the eyes are brown. Below the ramp the target's
# own iris stays.
IRIS_TRUST = (6.0, 14.0)


def iris_trust(colour: F32) -> float:
    """0..1: how far the source's iris `colour` (BGR albedo, `iris_colour`) is taken."""
    lightness = float(_lab_l(np.asarray(colour, np.float32).reshape(1, 1, 3))[0, 0])
    return _between(lightness, *IRIS_TRUST)


# The reddest an iris is, as a share of its b* (CIELAB): on the yellow side a* at most
# 0.7 b* (a hue of at least 55°, a warm brown), on the blue side 0.1 |b*| (a blue with
# a touch of violet). Brown, hazel, green, blue and grey irises all lie within; what a
# photo's iris band reads redder than that is its lids, a bloodshot white, red-eye or
# the photo's cast. Measured on the DEV+WIDE sources: dflw_060's irises read a* 20, b*
# 13 (hue 34°) and dflw_021's a* 20, b* 6, and their swaps' irises came out red and
# mauve; the brown ones read hue 38–81°. Held at the source, dflw_021's came out
# teal on some targets: the eye's share of the skin's change of colour (its photo's
# cast taken out) then moved a cast-free colour on; so it is held as shown.
IRIS_RED_LIMIT = (0.7, 0.1)


def plausible_iris(colour: F32) -> F32:
    """`colour` (BGR) with its redness held to what an iris can have (IRIS_RED_LIMIT),
    its lightness and b* kept."""
    pixel = np.clip(colour, 0.0, 255.0).astype(np.float32).reshape(1, 1, 3) / 255.0
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab)
    b = lab[..., 2]
    limit = np.where(b > 0.0, IRIS_RED_LIMIT[0] * b, -IRIS_RED_LIMIT[1] * b)
    if float(lab[..., 1].max()) <= float(limit.max()):
        return np.asarray(colour, np.float32)  # within: exactly as measured
    lab[..., 1] = np.minimum(lab[..., 1], limit)
    return (cv2.cvtColor(lab, cv2.COLOR_Lab2BGR) * 255.0).reshape(3).astype(np.float32)


CATCHLIGHT = (20.0, 30.0)  # L* above the iris's median: a reflection, kept as it is


def _recolour_iris(
    eyeball: F32,
    seen: NDArray[np.bool_],
    iris: tuple[float, float, float],
    colour: F32,
    radii: F32 | None = None,
    share: float = 1.0,
) -> None:
    """The target's iris in `eyeball` (in place) moved, in Lab, `share` of the way to
    `colour` (BGR, in the render's light); its catchlights keep their own colour
    (shifted, a white reflection turned yellow or blue). `radii`: `_radii` for the
    iris, when known."""
    t = _radii(eyeball.shape[:2], (iris[0], iris[1]), iris[2]) if radii is None else radii
    mine = seen & (t > IRIS_BAND[0]) & (t < IRIS_BAND[1])
    if mine.sum() < 5:
        return
    ours = channel_median(eyeball[mine]).astype(np.float32)
    pair = np.clip(np.stack([colour, ours])[None], 0, 255) / 255.0
    lab_pair = cv2.cvtColor(pair.astype(np.float32), cv2.COLOR_BGR2Lab)[0]
    shift = share * (lab_pair[0] - lab_pair[1])
    # Clipped as a round trip through Lab would leave it, but converted only over the
    # iris's circle: nothing moves beyond 1.05 radii, and the whole eye's box three
    # times over cost more than the rest of the recolouring.
    np.clip(eyeball, 0, 255, out=eyeball)
    y0, y1, x0, x1 = _circle_box((iris[0], iris[1]), 1.05 * iris[2], eyeball.shape)
    inner = eyeball[y0:y1, x0:x1]
    lab = cv2.cvtColor(inner / 255.0, cv2.COLOR_BGR2Lab)
    glint = _ramp(lab[..., 0] - lab_pair[1][0], *CATCHLIGHT)
    weight = (np.clip((1.05 - t[y0:y1, x0:x1]) / 0.2, 0.0, 1.0) * (1.0 - glint))[..., None]
    lab += shift * weight
    inner[:] = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR) * 255.0


def _circle_box(
    centre: tuple[float, float], radius: float, shape: tuple[int, ...]
) -> tuple[int, int, int, int]:
    """(y0, y1, x0, x1): the pixels of an image of `shape` within `radius` of `centre`
    (x, y), and a pixel's margin, clipped to the image."""
    height, width = shape[:2]
    x0 = min(max(int(np.floor(centre[0] - radius)) - 1, 0), width)
    y0 = min(max(int(np.floor(centre[1] - radius)) - 1, 0), height)
    x1 = min(max(int(np.ceil(centre[0] + radius)) + 2, x0), width)
    y1 = min(max(int(np.ceil(centre[1] + radius)) + 2, y0), height)
    return y0, y1, x0, x1


def _lid_skin(region: F32, mine: F32, shown: F32, ring: NDArray[np.bool_]) -> F32:
    """What covers a shut eye's opening: the target's own lid there (its lashes, crease
    and shading: an inpainted fill read as a grey, bruised blank and the landmarker
    still saw an open eye in it), brought to the render's colour by the lid skin round
    the opening, channel by channel. With under 5 px of that skin to compare, the
    opening is inpainted from the render around it instead."""
    if ring.sum() >= 5:
        gain = channel_median(region[ring]) / np.maximum(channel_median(mine[ring]), 1.0)
        return (mine * gain).astype(np.float32)
    hole = cv2.dilate((shown > 0.05).astype(np.uint8), np.ones((3, 3), np.uint8))
    crop = np.clip(region, 0, 255).astype(np.uint8)
    return cv2.inpaint(crop, hole, 3, cv2.INPAINT_TELEA).astype(np.float32)


SCLERA_LIFT = (4.0, 12.0)  # L* above the lids' skin: lid → sclera
IRIS_DROP = (8.0, 20.0)  # L* below the lids' skin, inside the iris's circle: lid → iris


def _lab_l(bgr: F32) -> F32:
    return cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)[..., 0]


def _ramp(value: F32, lo: float, hi: float) -> F32:
    return np.clip((value - lo) / (hi - lo), 0.0, 1.0).astype(np.float32)


def _between(value: float, start: float, end: float) -> float:
    """0 at `start`, 1 at `end` (either way round), linear between, clipped."""
    return float(np.clip((value - start) / (end - start), 0.0, 1.0))


def _ring(opening: F32, radius: float) -> NDArray[np.bool_]:
    """The lids' skin just around an eye opening, about an iris radius wide."""
    inside = (opening > 0.3).astype(np.uint8)
    near = cv2.dilate(inside, np.ones((3, 3), np.uint8), iterations=2)
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * max(2, round(radius)) + 1,) * 2)
    return (cv2.dilate(inside, grow) > 0) & (near == 0)


def visible_eyeball(
    own: F32,
    opening: F32,
    ring: NDArray[np.bool_],
    iris: tuple[float, float],
    radius: float,
    radii: F32 | None = None,
) -> F32:
    """0..1 per pixel of an eye's `opening`: how surely the target shows its eyeball
    there rather than a lid. Neither mesh closes its lids fully on a blink (the iris
    model read a shut eye as 0.22 of its width open, against 0.36 open), but the
    target's pixels between them do: a closed lid has its skin's lightness, while an
    open eye shows sclera (lighter than the lids) or its iris (darker, inside the iris's
    circle; a lash line is dark too, but thin, and opened away). `radii`: `_radii`
    for the iris, when known."""
    if ring.sum() < 5:
        return opening
    lightness = _lab_l(cv2.GaussianBlur(own, (0, 0), 0.7))
    lid = float(np.median(lightness[ring]))
    sclera = _ramp(lightness - lid, *SCLERA_LIFT)
    t = _radii(opening.shape, iris, radius) if radii is None else radii
    iris_like = _ramp(lid - lightness, *IRIS_DROP) * (t < 1.1)
    iris_like = cv2.morphologyEx(iris_like, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    eyeball = np.maximum(sclera, iris_like)
    eyeball = cv2.GaussianBlur(eyeball, (0, 0), 0.8)
    return (eyeball * opening).astype(np.float32)
