"""Renders a source identity onto a target face: target pose, expression and light.

Per face: blend the shapes, pose the mesh with the target's similarity transform,
rasterise it over the face's frame region (z-buffered, so a turned head folds
correctly), look every pixel up in the source's de-lit texture with one remap, and put
it in the target's light and skin colour (engine/swap/shading.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np

from engine.core.profile import NO_STEPS, StepTimer
from engine.core.resample import block_factor, shrink, snap_span
from engine.core.settings import SwapSettings
from engine.core.types import F32, Frame
from engine.face.fit import FaceFitter, vertex_normals
from engine.face.mesh import topology
from engine.face.records import Face, FacePatch
from engine.render.raster import rasterize_attributes
from engine.swap import shading
from engine.swap.apply_light import shade
from engine.swap.identity import SourceIdentity
from engine.swap.shape import shape_transfer
from engine.swap.sharpness import DetailSample, soften

FEATURE_MASK_SIZE = 256


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
        amount = swap.alpha * swap.shape_alpha
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
    ) -> FacePatch | None:
        """The new face over its frame region, rendered at a working resolution where
        the face spans at most `WORK_IOD_PX` between the eyes (so its cost does not grow
        with the face; the compositor resamples it once, into the frame).

        `blur_sigma` (in inter-ocular distances): how much to soften the render to the
        target's detail level; None measures it on this frame (costly: callers that
        track a face reuse the value for a while). `on_detail`, with a `blur_sigma`:
        receives what re-measuring it takes, for the caller to measure elsewhere."""
        if face.fit is None or face.landmarks is None:
            return None
        with steps.step("shape"):
            posed = self.posed_landmarks(face, identity, swap, rest_canonical)
        with steps.step("grid"):
            region = _region(posed, frame.shape)
            if region is None:
                return None
            iod = float(face.fit.pose.scale)
            k = min(1.0, WORK_IOD_PX / iod) if WORK_IOD_PX > 0 else 1.0
            # A region that halves evenly as far as the scale allows: the frame shrinks
            # to the working grid mostly by halving (engine/core/resample.py says why).
            height, width = frame.shape[:2]
            block = block_factor(k)
            x0, x1 = snap_span(region[0], region[2], block, width)
            y0, y1 = snap_span(region[1], region[3], block, height)
            size = (max(4, round((x1 - x0) * k)), max(4, round((y1 - y0) * k)))
            scale = np.array([size[0] / (x1 - x0), size[1] / (y1 - y0)], np.float32)
            origin = np.array([x0, y0], np.float32)
            local = _to_grid(posed[:, :2], origin, scale)
            work_iod = iod * float(scale.mean())
            triangles, kept_contours = self.holes(swap)
        with steps.step("raster"):
            per_pixel, coverage = self._rasterize(
                face, identity, swap, posed, local, triangles, (size[1], size[0])
            )
            if not coverage.any():
                return None
        texture_size = identity.albedo.shape[0]
        with steps.step("texture"):
            source = _lookup(identity.render_texture, per_pixel, texture_size)
            weights = _lookup(_weights(), per_pixel, texture_size)
        with steps.step("light"):
            gain = (
                _lookup(self._light_field(frame, face, identity), per_pixel, texture_size)
                if color_match
                else _NO_GAIN
            )
            image, mask, features = shade(source, gain, weights, coverage, color_match)
        with steps.step("detail"):
            if blur_sigma is None or on_detail is not None:
                sample = DetailSample(image, frame, (x0, y0, x1, y1), coverage, features, work_iod)
                if blur_sigma is None:
                    blur_sigma = sample.measure()
                elif on_detail is not None:
                    on_detail(sample)
            image = soften(image, blur_sigma * work_iod * SOFTEN)
        if swap.alpha < 1.0:
            # The target sampled from the frame shrunk to the working grid: sampled
            # from the full frame a large face would alias.
            in_target = _to_grid(per_pixel[..., 2:4], origin, scale)
            image = _mix_target(shrink(frame[y0:y1, x0:x1], size), in_target, image, swap.alpha)
        with steps.step("masks"):
            # The target's own mouth, where its inside is in the frame: the posed lips
            # moved a little with the new nose and eyes (engine/swap/shape.py).
            own = _to_grid(face.landmarks[:, :2], origin, scale)
            keep = _keep_mask(own, kept_contours, coverage.shape)
        return FacePatch(
            x0=int(x0),
            y0=int(y0),
            image=np.asarray(image, dtype=np.float32),
            mask=mask,
            keep_mask=keep,
            detail_sigma=blur_sigma,
            scale_px=work_iod,
            features=features,
            frame_size=(x1 - x0, y1 - y0),
        )

    def _rasterize(
        self,
        face: Face,
        identity: SourceIdentity,
        swap: SwapSettings,
        posed: F32,
        local: F32,
        triangles: np.ndarray,
        shape: tuple[int, int],
    ) -> tuple[F32, np.ndarray]:
        """Per pixel of the region: source texture (u, v) and, when the target is blended
        in, where the pixel sits in the target; and the coverage."""
        assert face.landmarks is not None
        size = identity.albedo.shape[0]
        attrs = [self.uv * size]
        if swap.alpha < 1.0:
            attrs.append(face.landmarks[:, :2])  # where each point sits in the target
        per_pixel, coverage = rasterize_attributes(
            local, posed[:, 2], triangles, np.hstack(attrs), shape
        )
        return per_pixel, coverage

    def _light_field(self, frame: Frame, face: Face, identity: SourceIdentity) -> F32:
        """The BGR gain (S×S×3 over the texture square) taking the source's de-lit skin
        to the target's light and skin colour: the target's smooth skin field over the
        source's skin colour. (The eyes get their own, per pixel: `shade`.)"""
        assert face.landmarks is not None
        facing = np.clip(-vertex_normals(face.landmarks, self.triangles)[:, 2], 0.0, 1.0)
        low, weight = shading.unwrap_lowres(frame, face.landmarks, facing)
        target_field = shading.smooth_field(low, shading.skin_weight(weight))
        return shading.light_ratio(target_field, identity.skin_colour)


# How much of the measured detail gap the render is softened by (DEV+WIDE |sharpness
# log2| at a 160 px working resolution: 0.76 at 0, 0.63 at 0.6, 0.40 at 1).
SOFTEN = 1.0
# The face's working resolution: inter-ocular distance in render pixels at most (0: the
# frame's own). 160 → 100 took DEV+WIDE |sharpness log2| from 0.40 to 0.26 with identity
# unchanged, and made the swapper's cost flat in the face's size; 100 → 80: 0.23 → 0.18,
# seam grad 0.105 → 0.102, ID@1 98.4 → 98.9 %, leave-source-out 82.0 % both, and the
# swapper and compositor's per-pixel work 0.64× (issue 13 notes). Side by side, the eyes
# of a 270 px face rendered at 80 and 100 look the same.
WORK_IOD_PX = 80.0


def _to_grid(points: F32, origin: F32, scale: F32) -> F32:
    """Frame pixel coordinates on the working grid whose (0, 0) pixel starts at frame
    pixel `origin`. Pixel centres map like cv2.resize's: x_grid = (x − x0 + 0.5)·k − 0.5."""
    return (points - origin + 0.5) * scale - 0.5


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


def _remap(image: np.ndarray, xy: F32) -> np.ndarray:
    """`image` looked up (bilinear, edges replicated) at the H×W×2 coordinates `xy`."""
    return cv2.remap(
        image, np.ascontiguousarray(xy), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


_NO_GAIN = np.ones((1, 1, 3), np.float32)  # `shade` does not read it: no relighting


@lru_cache(maxsize=1)
def _weights() -> F32:
    """Eye and feature weights over the texture square (F×F×2), for `shade`. The eyes'
    gain needs the fine map: at the light field's size it would reach the lids."""
    masks = shading.feature_masks(FEATURE_MASK_SIZE)
    return np.dstack([masks.eyes, masks.features]).astype(np.float32)


def _lookup(texture: F32, per_pixel: F32, texture_size: int) -> F32:
    """A texture-space map of another resolution looked up at the render's (u, v)."""
    return _remap(texture, per_pixel[..., :2] * np.float32(texture.shape[0] / texture_size))


def _mix_target(target: Frame, where: F32, image: np.ndarray, alpha: float) -> np.ndarray:
    """The latent blend: the rendered face mixed with the target's own, pixel by pixel
    (`where`: each render pixel's place in `target`)."""
    own = _remap(target, where).astype(np.float32)
    return alpha * image + (1.0 - alpha) * own


def _keep_mask(local: F32, contours: list[np.ndarray], shape: tuple[int, ...]) -> F32 | None:
    """Where the target shows through (inside the kept contours: the mouth), antialiased."""
    if not contours:
        return None
    keep = np.zeros(shape, np.uint8)
    polygons = [np.round(local[c] * 4).astype(np.int32) for c in contours]
    cv2.fillPoly(keep, polygons, 255, cv2.LINE_AA, shift=2)
    return keep.astype(np.float32) * (1.0 / 255.0)
