"""Renders a source identity onto a target face: target pose, expression and light.

Per face: blend the shapes, pose the mesh with the target's similarity transform,
rasterise it over the face's frame region (z-buffered, so a turned head folds
correctly), look every pixel up in the source's de-lit texture with one remap, and put
it in the target's light and skin colour (engine/swap/shading.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from engine.core.face_records import Face, FacePatch
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.resample import block_factor, shrink, snap_span
from engine.core.settings import SwapSettings
from engine.core.types import F32, Frame
from engine.face.fit import FaceFitter
from engine.face.mesh import topology
from engine.render.composite import SPLIT_LOW, box
from engine.render.polygon import polygon_mask
from engine.render.raster import rasterize_attributes
from engine.swap import (
    eye_surround,
    facial_hair,
    form_light,
    lids,
    mix,
    own_colour,
    shading,
    skin_texture,
    target_glare,
    target_nostrils,
    target_shadow,
)
from engine.swap.apply_light import shade
from engine.swap.broad_light import add_broad_difference, masked_difference
from engine.swap.eyes import EyeScene, eyes, show_eyes
from engine.swap.facing import facing, unit_normals
from engine.swap.identity import SourceIdentity
from engine.swap.shape import shape_transfer
from engine.swap.sharpness import DetailSample, soften
from engine.swap.target_memory import TargetLight, TargetMemory, measure_now, to_texture

FEATURE_MASK_SIZE = 256
# A render pixel is plain skin under this much feature weight (eyes, brows, lips):
# where the tone is sampled and the target's own skin texture, shadows, highlights and
# nostrils are taken.
PLAIN_FEATURES = 0.05


def _spanning(triangles: np.ndarray, contour: tuple[int, ...]) -> np.ndarray:
    """Triangles with all three corners on a contour: those that bridge its opening."""
    ring = set(contour)
    return np.array([all(int(i) in ring for i in t) for t in triangles])


class FaceRenderer:
    def __init__(self, fitter: FaceFitter | None = None) -> None:
        fitter = fitter or FaceFitter()
        topo = topology()
        self.triangles = fitter.triangles
        # Triangles that bridge the lips would paint the source's mouth (teeth) over the
        # target's; leaving them out lets the target's own mouth interior show through.
        # (Doing the same for the eyes was measured: blinks barely followed better — the
        # source's eyelids, not its eyeballs, read as open — and identity dropped.)
        self._spans_mouth = _spanning(self.triangles, topo.regions["lips_inner"])
        self.inner_lips = topo.region("lips_inner")
        self.uv = topo.uv
        self.shape = shape_transfer()

    def holes(self, swap: SwapSettings) -> tuple[np.ndarray, list[np.ndarray]]:
        """(triangles to render, contours whose inside stays the target's)."""
        skip = np.zeros(len(self.triangles), bool)
        contours: list[np.ndarray] = []
        if swap.keep_mouth_interior:
            skip |= self._spans_mouth
            contours.append(self.inner_lips)
        return self.triangles[~skip], contours

    def posed_landmarks(
        self,
        face: Face,
        identity: SourceIdentity,
        swap: SwapSettings,
        rest_canonical: F32 | None = None,
    ) -> F32:
        """Target landmarks with the source's shape blended in, in frame pixels."""
        assert face.fit is not None and face.landmarks is not None
        amount = swap.blend * swap.shape_alpha
        if amount <= 0.0:
            return face.landmarks
        fit = face.fit
        rest = fit.canonical_landmarks if rest_canonical is None else rest_canonical
        offsets = self.shape.offsets(identity.canonical - rest, amount, rest)
        pose = fit.pose
        moved = pose.scale * (offsets.astype(np.float64) @ pose.rotation.T)
        return (face.landmarks + moved).astype(np.float32)

    def render(
        self,
        frame: Frame,
        face: Face,
        identity: SourceIdentity,
        swap: SwapSettings,
        color_match: bool = True,
        rest_canonical: F32 | None = None,
        blur_sigma: float | None = None,
        steps: StepTimer = NO_STEPS,
        on_detail: Callable[[DetailSample], None] | None = None,
        memory: TargetMemory | None = None,
    ) -> FacePatch | None:
        """The new face over its frame region, rendered at a working resolution where
        the face spans at most `WORK_IOD_PX` between the eyes (so its cost does not grow
        with the face; the compositor resamples it once, into the frame).

        `blur_sigma` (in inter-ocular distances): how much to soften the render to the
        target's detail level; None measures it on this frame (costly: callers that
        track a face reuse the value for a while). `on_detail`, with a `blur_sigma`:
        receives what re-measuring it takes, for the caller to measure elsewhere.
        `memory`: the tracked face's kept measurements of its own light and beard, read
        and renewed in turn (engine/swap/target_memory.py); None measures both."""
        if face.fit is None or face.landmarks is None:
            return None
        measure_light, measure_hair = measure_now(memory)
        with steps.step("shape"):
            posed = self.posed_landmarks(face, identity, swap, rest_canonical)
            gain = lids.YOURS_GAIN if swap.eyes == "yours" else lids.GAIN
            seen, shown = lids.lid_gaps(face.landmarks, identity.canonical, gain)
            posed = lids.open_lids(posed, seen, shown)
        with steps.step("grid"):
            grid = _grid(posed, float(face.fit.pose.scale), frame.shape)
            if grid is None:
                return None
            x0, y0, x1, y1 = grid.box
            local = grid.to_grid(posed[:, :2])
            triangles, kept_contours = self.holes(swap)
        with steps.step("raster"):
            per_pixel, coverage = self._rasterize(
                face, identity, posed, local, triangles, (grid.size[1], grid.size[0])
            )
            if not coverage.any():
                return None
        texture_size = identity.albedo.shape[0]
        with steps.step("texture"):
            uv = _uv_maps(per_pixel)
            texture = identity.texture(
                mouth_line=swap.keep_mouth_interior, beard=swap.keep_source_beard
            )
            source = _lookup(texture, uv, texture_size)
            weights = _lookup(_weights(), uv, texture_size)
            # The target itself on the working grid, each pixel taken from where its mesh
            # point sits in the frame (sampled from the frame shrunk to the grid: from the
            # full frame a large face would alias).
            under = shrink(frame[y0:y1, x0:x1], grid.size)
            own = _remap(under, *grid.axes_to_grid(per_pixel[..., 2], per_pixel[..., 3])).astype(
                np.float32
            )
        with steps.step("light"):
            relit, image, mask, features, plain = self._appearance(
                posed,
                identity,
                swap,
                color_match,
                grid,
                uv,
                source,
                weights,
                coverage,
                own,
                self._target_light(frame, face, color_match, memory, measure_light, steps),
                steps,
            )
        image = _with_target_own(
            image,
            own,
            uv,
            coverage,
            plain,
            local,
            texture_size,
            grid.work_iod,
            color_match,
            memory,
            measure_hair,
            steps,
        )
        if face.irises is not None:
            with steps.step("eyes"):
                image = np.ascontiguousarray(image, dtype=np.float32)
                shifted = face.irises[:, :2] + _eye_shift(face, posed)
                irises = np.column_stack(
                    [grid.to_grid(shifted), face.irises[:, 2] * float(grid.scale.mean())]
                )
                scene = EyeScene(
                    image,
                    relit,
                    source[..., :3],
                    own,
                    weights[..., 0],
                    local,
                    irises,
                )
                show_eyes(swap.eyes, scene, identity.eyeballs, identity.iris_colour, seen, steps)
        work_iod = grid.work_iod
        with steps.step("detail"):
            if blur_sigma is None or on_detail is not None:
                sample = DetailSample(image, frame, (x0, y0, x1, y1), coverage, features, work_iod)
                if blur_sigma is None:
                    blur_sigma = sample.measure()
                elif on_detail is not None:
                    on_detail(sample)
            image = soften(image, blur_sigma * work_iod * SOFTEN)
        if swap.blend < 1.0:
            image = swap.blend * image + (1.0 - swap.blend) * own
        with steps.step("masks"):
            # The target's own mouth, where its inside is in the frame: the posed lips
            # moved a little with the new nose and eyes (engine/swap/shape.py).
            keep = _keep_mask(grid.to_grid(face.landmarks[:, :2]), kept_contours, coverage.shape)
        return FacePatch(
            x0=int(x0),
            y0=int(y0),
            image=_finite(np.asarray(image, dtype=np.float32)),
            mask=mask,
            keep_mask=keep,
            detail_sigma=blur_sigma,
            scale_px=work_iod,
            features=features,
            frame_size=(x1 - x0, y1 - y0),
            input_sample=under,  # the compositor's frame under the patch, sampled once
        )

    def _appearance(
        self,
        posed: F32,
        identity: SourceIdentity,
        swap: SwapSettings,
        color_match: bool,
        grid: _Grid,
        uv: tuple[F32, F32],
        source: F32,
        weights: F32,
        coverage: np.ndarray,
        own: F32,
        light: TargetLight | None,
        steps: StepTimer = NO_STEPS,
    ) -> tuple[F32, F32, F32, F32, F32]:
        """(relit, image, mask, features, plain): the source's texture in the target's
        `light` (`relit`; None when `color_match` is off), then in its skin tone and, as
        much as `swap.likeness` leaves to the target, its broad light (`image`); `plain`
        is the plain skin (covered, off the features: 1, else 0), which the steps that
        take the target's own skin read."""
        texture_size = identity.albedo.shape[0]
        gain = _NO_GAIN
        fill = 0.0
        if light is not None:  # colour matching is on
            field, fill = self._light_field(light, identity, posed, swap.likeness, steps)
            with steps.step("gain"):
                gain = _lookup(field, uv, texture_size)
        with steps.step("shade"):
            relit, mask, features = shade(source, gain, weights, coverage, color_match)
        image = relit
        plain = (coverage & (features < PLAIN_FEATURES)).astype(np.float32)
        if color_match:  # off, the source's texture shows as it is
            with steps.step("tone"):
                sampled = (plain > 0.0) & (source[..., 3] > 0.5)
                image = shading.match_tone(image, own, sampled, weights[..., 0])
            if swap.likeness < 1.0:
                with steps.step("broad"):
                    share = 1.0 - swap.likeness
                    image = _target_broad_light(
                        image,
                        own,
                        coverage,
                        features,
                        grid.work_iod,
                        share,
                        max(share, BROAD_COLOUR),
                    )
            if fill > 0.0:
                with steps.step("skin_texture"):
                    # The target's own skin texture (engine/swap/skin_texture.py).
                    image = skin_texture.with_target_texture(image, own, plain, grid.work_iod, fill)
            with steps.step("features"):
                # The lips' and brows' own colour (engine/swap/own_colour.py).
                where = _lookup(own_colour.regions(), uv, texture_size)
                for region, darken, lighten in own_colour.FEATURES:
                    image = own_colour.own_colour(
                        image,
                        own,
                        where[..., region],
                        covered=coverage,
                        darken=darken,
                        lighten=lighten,
                    )
        return relit, image, mask, features, plain

    def _rasterize(
        self,
        face: Face,
        identity: SourceIdentity,
        posed: F32,
        local: F32,
        triangles: np.ndarray,
        shape: tuple[int, int],
    ) -> tuple[F32, np.ndarray]:
        """Per pixel of the region: where it sits in the source's texture (u, v) and in
        the target's frame (x, y); and the coverage."""
        assert face.landmarks is not None
        attrs = np.hstack([self.uv * identity.albedo.shape[0], face.landmarks[:, :2]])
        return rasterize_attributes(local, posed[:, 2], triangles, attrs, shape)

    def _target_light(
        self,
        frame: Frame,
        face: Face,
        color_match: bool,
        memory: TargetMemory | None,
        measure: bool,
        steps: StepTimer = NO_STEPS,
    ) -> TargetLight | None:
        """The target's own light (None when `color_match` is off: not needed): kept in
        `memory` unless `measure`, else measured on this frame (and kept): its plain
        skin's smooth field, its light's play over its own form
        (engine/swap/form_light.py) and its skin's spread about that light
        (engine/swap/skin_texture.py)."""
        if not color_match:
            return None
        if memory is not None and memory.light is not None and not measure:
            return memory.light
        assert face.landmarks is not None
        with steps.step("unwrap"):
            points = np.ascontiguousarray(face.landmarks, dtype=np.float32)
            normals = unit_normals(points, self.triangles)
            low, weight = shading.unwrap_lowres(frame, points, facing(normals))
        with steps.step("field"):
            skin = shading.skin_weight(weight)
            field = shading.smooth_field(low, skin)
        with steps.step("form"):
            own_terms = form_light.basis(normals)
            coeffs = form_light.fit_over(low, skin, field, own_terms)
        with steps.step("texture_level"):
            # The target's skin about its own light, to hold the source's to
            # (engine/swap/skin_texture.py).
            plain = shading.feature_masks(low.shape[0]).skin
            own_light = field * form_light.shade(coeffs, own_terms, plain)
            spread = skin_texture.target_spread(low, own_light, weight)
        light = TargetLight(field, coeffs, spread)
        if memory is not None:
            memory.light = light
        return light

    def _light_field(
        self,
        light: TargetLight,
        identity: SourceIdentity,
        posed: F32,
        likeness: float,
        steps: StepTimer = NO_STEPS,
    ) -> tuple[F32, float]:
        """The BGR gain (S×S×3 over the texture square) taking the source's de-lit skin
        to the target's `light` and skin colour: the target's smooth skin field, with its
        light's play over the face's form on the `posed` mesh (engine/swap/form_light.py),
        over the source's skin colour, with the source's skin departures held to the
        target's own amount (engine/swap/skin_texture.py; then at its finer size); and
        how much of the render's skin texture band is the target's own at this
        `likeness` (`skin_texture.fill`). (The eyes get their own gain, per pixel:
        `shade`.)"""
        with steps.step("posed_form"):
            plain = shading.feature_masks(light.field.shape[0]).skin
            posed_terms = form_light.basis(
                unit_normals(np.ascontiguousarray(posed), self.triangles)
            )
            field = light.field * form_light.shade(light.coeffs, posed_terms, plain)
        keep = skin_texture.share(light.spread, identity.skin.spread)
        ratio = shading.light_ratio(field, identity.skin_colour)
        gain = skin_texture.damped_gain(ratio, identity.skin, keep)
        return gain, skin_texture.fill(light.spread, identity.skin.spread, likeness)


# How much of the measured detail gap the render is softened by (DEV+WIDE |sharpness
# log2| at a 160 px working resolution: 0.76 at 0, 0.63 at 0.6, 0.40 at 1).
SOFTEN = 1.0
# The face's working resolution: inter-ocular distance in render pixels at most (0: the
# frame's own). 160 → 100 took DEV+WIDE |sharpness log2| from 0.40 to 0.26 with identity
# unchanged, and made the swapper's cost flat in the face's size; 100 → 80: 0.23 → 0.18,
# seam grad 0.105 → 0.102, ID@1 98.4 → 98.9 %, leave-source-out 82.0 % both, and the
# swapper and compositor's per-pixel work 0.64× (issue 13 notes). Side by side, the eyes
# of a 270 px face rendered at 80 and 100 look the same. 80 → 64 (stop 49, issue 31):
# swapper 0.8× and compositor 0.8× a frame on obama_1 at 720p, DEV+WIDE ID@1 27.4 →
# 25.8 %, leave-source-out 9.8 % both, skin and eye numbers within their noise; two
# raters saw no difference in the eyes and brows of 24 large faces (43 of 48 "alike").
# 48 read the same by eye (44 of 48) but cost identity (22.6 / 8.2 %): docs/swap.md.
WORK_IOD_PX = 64.0


@dataclass(frozen=True)
class _Grid:
    """The working grid a face is rendered on: the frame box it covers and its scale."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in the frame
    size: tuple[int, int]  # (width, height) of the grid
    scale: F32  # grid pixels per frame pixel, (x, y)
    work_iod: float  # the face's inter-ocular distance on the grid

    def to_grid(self, points: F32) -> F32:
        return _to_grid(points, np.array(self.box[:2], np.float32), self.scale)

    def axes_to_grid(self, x: F32, y: F32) -> tuple[F32, F32]:
        """`to_grid` for coordinates held as separate x and y arrays (remap's maps)."""
        return _axes_to_grid(x, y, np.array(self.box[:2], np.float32), self.scale)


def _grid(posed: F32, iod: float, frame_shape: tuple[int, ...]) -> _Grid | None:
    """The posed face's grid: at most `WORK_IOD_PX` between the eyes, over a region
    that halves evenly as far as the scale allows (the frame shrinks to the grid mostly
    by halving: engine/core/resample.py says why); None when too little is left."""
    region = _region(posed, frame_shape)
    if region is None:
        return None
    k = min(1.0, WORK_IOD_PX / iod) if WORK_IOD_PX > 0 else 1.0
    height, width = frame_shape[:2]
    block = block_factor(k)
    x0, x1 = snap_span(region[0], region[2], block, width)
    y0, y1 = snap_span(region[1], region[3], block, height)
    size = (max(4, round((x1 - x0) * k)), max(4, round((y1 - y0) * k)))
    scale = np.array([size[0] / (x1 - x0), size[1] / (y1 - y0)], np.float32)
    return _Grid((x0, y0, x1, y1), size, scale, iod * float(scale.mean()))


def _to_grid(points: F32, origin: F32, scale: F32) -> F32:
    """Frame pixel coordinates (…×2) on the working grid whose (0, 0) pixel starts at
    frame pixel `origin`. Pixel centres map like cv2.resize's: x_grid = (x − x0 + 0.5)·k
    − 0.5."""
    return np.stack(_axes_to_grid(points[..., 0], points[..., 1], origin, scale), axis=-1)


def _axes_to_grid(x: F32, y: F32, origin: F32, scale: F32) -> tuple[F32, F32]:
    """`_to_grid` axis by axis. Broadcast against the pair (origin, scale) over a
    last axis of two, NumPy's inner loop is two elements long: on a face's H×W×2 map
    that took 0.91 ms a call, axis by axis 0.16 (the same arithmetic, the same bits)."""
    half = np.float32(0.5)
    return (x - origin[0] + half) * scale[0] - half, (y - origin[1] + half) * scale[1] - half


def _region(posed: F32, frame_shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1): the posed mesh's box with a 2 px margin, clipped to the frame;
    None when too little of it is left to render."""
    height, width = frame_shape[:2]
    x0, y0 = np.floor(posed[:, :2].min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(posed[:, :2].max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    return x0, y0, x1, y1


def _remap(image: np.ndarray, x: F32, y: F32) -> np.ndarray:
    """`image` looked up (bilinear, edges replicated) at the H×W coordinates (`x`, `y`)."""
    return cv2.remap(image, x, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


_NO_GAIN = np.ones((1, 1, 3), np.float32)  # `shade` does not read it: no relighting


@lru_cache(maxsize=1)
def _weights() -> F32:
    """Eye and feature weights over the texture square (F×F×2), for `shade`. The eyes'
    gain needs the fine map: at the light field's size it would reach the lids."""
    masks = shading.feature_masks(FEATURE_MASK_SIZE)
    return np.dstack([masks.eyes, masks.features]).astype(np.float32)


def _uv_maps(per_pixel: F32) -> tuple[F32, F32]:
    """The render's texture coordinates (u, v) as two contiguous maps, split out of
    `per_pixel` once for all the lookups."""
    return np.ascontiguousarray(per_pixel[..., 0]), np.ascontiguousarray(per_pixel[..., 1])


def _finite(image: F32) -> F32:
    """`image`, or an error when any pixel is not finite: one NaN spreads through the
    softening over the whole face (a black face), so the frame fails loudly and the
    output guard covers it; it is never sent."""
    if not np.isfinite(image).all():
        raise FloatingPointError("the swapped face has non-finite pixels")
    return image


def _lookup(texture: F32, uv: tuple[F32, F32], texture_size: int) -> F32:
    """A texture-space map, of the texture's size or another, looked up at the render's
    (u, v) (`_uv_maps`). (Each map is scaled on its own: `_axes_to_grid` says why; at
    the texture's own size they are used as they are, the same bits as times 1.)"""
    if texture.shape[0] == texture_size:
        return _remap(texture, *uv)
    k = np.float32(texture.shape[0] / texture_size)
    return _remap(texture, uv[0] * k, uv[1] * k)


def _with_target_own(
    image: F32,
    own: F32,
    uv: tuple[F32, F32],
    coverage: np.ndarray,
    plain: F32,
    local: F32,
    texture_size: int,
    work_iod: float,
    color_match: bool,
    memory: TargetMemory | None,
    measure_hair: bool,
    steps: StepTimer = NO_STEPS,
) -> F32:
    """`image` (the render) with what of the target (`own`) is not its skin kept: its
    beard or stubble (its own pixels: engine/swap/facial_hair.py) and, when the render
    is in the target's light (`color_match`), its deep shadows (the render darkened as
    the target is: engine/swap/target_shadow.py), its highlights (its own pixels:
    engine/swap/target_glare.py) and its nostrils (its own fine structure where its
    lower nose has a hole: engine/swap/target_nostrils.py). `plain`: the plain skin
    (`FaceRenderer._appearance`); `local`: the posed mesh on the grid."""
    with steps.step("hair"):
        hair = _target_hair(own, uv, coverage, texture_size, work_iod, memory, measure_hair)
        image = mix.towards(image, own, hair)
    if color_match:  # the render is in the target's light: its own light is what is missing
        with steps.step("shadow"):
            gain = target_shadow.shadow_gain(own, image, plain, work_iod)
            if gain is not None:
                image = image * gain
        with steps.step("glare"):
            shine = target_glare.glare(own, image, plain, work_iod)
            if shine is not None:
                image = mix.towards(image, own, shine)
        on_grid = _OnGrid(uv, coverage, local, texture_size, work_iod)
        with steps.step("nostrils"):
            image = _with_target_nostrils(image, own, on_grid)
        with steps.step("eye_surround"):
            image = _with_own_eye_surround(image, own, on_grid)
    return image


@dataclass(frozen=True)
class _OnGrid:
    """What a step worked on one region's box reads of the render: its texture
    coordinates (`_uv_maps`), its coverage, the posed mesh on the grid, the texture's
    size and the inter-ocular distance on the grid."""

    uv: tuple[F32, F32]
    coverage: np.ndarray
    local: F32
    texture_size: int
    work_iod: float

    def looked_up(self, texture_map: F32, box: tuple[slice, slice]) -> F32:
        """A texture-space map looked up over `box` (`_lookup`)."""
        return _lookup(texture_map, (self.uv[0][box], self.uv[1][box]), self.texture_size)


def _with_own_eye_surround(image: F32, own: F32, grid: _OnGrid) -> F32:
    """`image` with the skin round the eyes departing from the face's light no further
    than the target's (engine/swap/eye_surround.py), worked on the eyes' box only;
    written in place."""
    box = eye_surround.surround_box(grid.local, grid.coverage.shape, grid.work_iod)
    if box is None:
        return image
    zone = grid.looked_up(eye_surround.surround_zone(FEATURE_MASK_SIZE), box)
    # The eye openings are neither worked on (the eyes step's) nor read for the light.
    weight = grid.coverage[box].astype(np.float32) * (1.0 - grid.looked_up(_weights(), box)[..., 0])
    zone[..., 0] *= weight
    zone[..., 1] *= weight
    found = eye_surround.own_surround(image[box], own[box], zone, weight, grid.work_iod)
    if found is not None:
        image[box] = found
    return image


def _with_target_nostrils(image: F32, own: F32, grid: _OnGrid) -> F32:
    """`image` with the target's nostrils (engine/swap/target_nostrils.py), worked on
    the lower nose's box only. `image` is written in place: it is
    `_with_target_own`'s own (made by the hair step)."""
    box = target_nostrils.lower_nose_box(grid.local, grid.coverage.shape, grid.work_iod)
    if box is None:
        return image
    zone = grid.looked_up(target_nostrils.nostril_zone(FEATURE_MASK_SIZE), box)
    found = target_nostrils.own_nostrils(
        own[box], image[box], zone * grid.coverage[box], grid.work_iod
    )
    if found is not None:
        image[box] = found
    return image


def _target_hair(
    own: F32,
    uv: tuple[F32, F32],
    coverage: np.ndarray,
    texture_size: int,
    work_iod: float,
    memory: TargetMemory | None,
    measure: bool,
) -> F32:
    """H×W, 0..1: the target's beard or stubble on the render's grid: kept in `memory`
    unless `measure`, else found in `own` (engine/swap/facial_hair.py) and kept."""
    if memory is not None and memory.hair is not None and not measure:
        return _lookup(memory.hair, uv, texture_size) * coverage
    where = _lookup(facial_hair.regions(), uv, texture_size)
    hair = facial_hair.facial_hair(
        own,
        where[..., 0] * coverage,
        (where[..., 1] > 0.5) & coverage,
        where[..., 2],
        work_iod,
        where[..., 3],
    )
    if memory is not None:
        memory.hair = to_texture(hair, uv, coverage, texture_size)
    return hair


def _eye_shift(face: Face, posed: F32) -> F32:
    """2×2: how far the shape transfer moved each eye (right, left) in the frame: each
    moves as a whole (engine/swap/shape.py), and its iris with it."""
    assert face.landmarks is not None
    shifts = [
        (posed[list(eye.contour), :2] - face.landmarks[list(eye.contour), :2]).mean(axis=0)
        for eye in eyes()
    ]
    return np.array(shifts, np.float32)


# The target's share of the plain skin's broad colour (its low band less its lightness),
# whatever the likeness leaves of the broad light: a source photo's colour cast (a
# grey-green or a pink one, white make-up, a tungsten light) is not who they are, and
# the skin's colour across the face is the user's (docs/swap.md, "Broad colour").
BROAD_COLOUR = 0.8


def _target_broad_light(
    image: F32,
    own: F32,
    coverage: np.ndarray,
    features: F32,
    iod: float,
    amount: float,
    colour: float,
) -> F32:
    """`image` with `amount` of its plain skin's broad light and `colour` of its broad
    colour (the compositor's low band: coarser than `SPLIT_LOW` IODs, split into its
    lightness and the rest) replaced by the target's own (`own`: the target on the same
    grid), features left as they are.

    What a single source photo's light did at that scale (a shadowed cheek, dark
    sockets, a lit forehead) cannot be told from its skin, so all of it rode along;
    the target's own broad light is right by construction. Both lows are taken over the
    face's pixels only, as the compositor takes them, so that its bands stay
    consistent. The curve of this trade (likeness against skin artifacts) is in
    docs/swap.md."""
    weight = coverage.astype(np.float32)
    size = SPLIT_LOW * iod
    # Their low band less ours, in one pass: the box is linear (and the weight's sum,
    # the normalisation, rides along as a fourth channel).
    apart = box(masked_difference(own, image, weight), size)
    return add_broad_difference(image, apart, features, weight, amount, colour)


def _keep_mask(local: F32, contours: list[np.ndarray], shape: tuple[int, ...]) -> F32 | None:
    """Where the target shows through (inside the kept contours: the mouth), antialiased."""
    return polygon_mask([local[c] for c in contours], shape) if contours else None
