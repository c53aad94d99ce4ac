"""Compositor maths: feathered face mask, target mouth kept, blended back into the frame.

Only pixels under the feathered mask change; everything else is the input frame, pixel
for pixel. The compositor stage (engine/stages/composite.py) and the gallery's
mini-previews (engine/swap/preview.py) both blend with `composite`.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.settings import CompositorSettings
from engine.core.types import Frame, Mask
from engine.face.records import FacePatch
from engine.render.blend import three_band_blend, two_band_blend


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def face_size_px(patch: FacePatch) -> float:
    """Side of a square with the face's area: the unit of every mask width."""
    return float(np.sqrt(patch.mask.sum()))


def inside_distance(patch: FacePatch) -> np.ndarray:
    """Distance (px) from each face pixel to the face's outer edge (the mouth, a hole the
    target shows through, is not an edge here: it gets its own narrow feather)."""
    face = patch.mask > 0.5
    if patch.keep_mask is not None:
        face |= patch.keep_mask > 0.5
    return cv2.distanceTransform(face.astype(np.uint8), cv2.DIST_L2, 5)


def keep_factor(patch: FacePatch, face_px: float) -> Mask:
    """Where the target must show through (1 = keep): the mouth interior and occluders,
    with a ~1 px soft edge."""
    if patch.keep_mask is None:
        return np.zeros(patch.shape, np.float32)
    keep = cv2.dilate(patch.keep_mask, _disk(1))
    return cv2.GaussianBlur(keep, (0, 0), max(0.8, face_px * 0.004)).astype(np.float32)


_DETAIL_SIGMA = 0.006  # of face size: finer than this counts as skin texture


def composite(out: Frame, patch: FacePatch, settings: CompositorSettings) -> None:
    """Blend one patch into `out` (a copy of `frame`) in place.

    Two alphas, both smoothstep ramps `2·feather` wide over the distance from the face's
    edge (engine/render/blend.py computes them per pixel): colour, 0 outside the eroded
    face and 1 inside; texture (fine detail), the same ramp moved `texture_inset` further
    in, so where the new face's colour fades into the frame the skin texture is still
    the frame's own — no band of foreign pores, stubble or smoothness at the seam. Both
    are cut by the target's mouth interior (and occluders) with a ~1 px soft edge, and
    only rendered pixels change."""
    h, w = patch.shape
    ys, xs = slice(patch.y0, patch.y0 + h), slice(patch.x0, patch.x0 + w)
    inside = inside_distance(patch)
    if BANDS == 3:
        _three_band(out, patch, inside)
        return
    face_px = face_size_px(patch)
    feather = max(settings.min_feather_px, settings.mask_feather * face_px)
    erode = settings.mask_erode * face_px
    base = out[ys, xs].astype(np.float32)
    image = np.ascontiguousarray(patch.image, dtype=np.float32)
    # Two bands: low frequencies follow the colour ramp, detail the texture ramp. A box
    # filter splits them as well as a Gaussian here at a third of the cost.
    k = 2 * max(1, round(_DETAIL_SIGMA * face_px)) + 1
    image_low = cv2.blur(image, (k, k))
    base_low = cv2.blur(base, (k, k))
    two_band_blend(
        out[ys, xs],
        image,
        image_low,
        base_low,
        inside,
        np.ascontiguousarray(patch.mask, dtype=np.float32),
        keep_factor(patch, face_px),
        erode,
        erode + settings.texture_inset * face_px,
        2.0 * feather,
    )


BANDS = 3
# Band splits and ramps, as fractions of the inter-ocular distance.
SPLIT_FINE = 0.03  # box size of the fine/mid split
SPLIT_LOW = 0.25  # box size of the mid/low split
RAMPS = ((0.0, 0.25), (0.0, 0.12), (0.04, 0.12))  # (start, width) for low, mid, fine
FINE_SKIN = 0.0  # how much of the source's finest detail shows on plain skin


def _fine_weight(patch: FacePatch) -> np.ndarray:
    """Where the source's finest detail is used: its features (eyes, brows, lips); on
    plain skin the frame keeps its own grain, pores and sharpness."""
    if patch.features is None:
        return np.ones(patch.shape, np.float32)
    return np.ascontiguousarray(FINE_SKIN + (1.0 - FINE_SKIN) * patch.features, np.float32)


def _box(image: np.ndarray, size_px: float) -> np.ndarray:
    k = 2 * max(1, round(size_px / 2)) + 1
    return cv2.blur(image, (k, k))


def _three_band(out: Frame, patch: FacePatch, inside: np.ndarray) -> None:
    h, w = patch.shape
    ys, xs = slice(patch.y0, patch.y0 + h), slice(patch.x0, patch.x0 + w)
    iod = patch.scale_px if patch.scale_px > 0 else face_size_px(patch) / 1.7
    base = out[ys, xs].astype(np.float32)
    covered = np.ascontiguousarray(patch.mask, dtype=np.float32)
    # Outside the rendered face (and in its holes: hair, the mouth) the frame stands in,
    # so the band filters never mix in pixels that are not the new face.
    image = base + (patch.image - base) * covered[..., None]
    fine, low = SPLIT_FINE * iod, SPLIT_LOW * iod
    starts = np.array([r[0] * iod for r in RAMPS], np.float32)
    widths = np.array([max(r[1] * iod, 1.0) for r in RAMPS], np.float32)
    three_band_blend(
        out[ys, xs],
        image,
        _box(image, fine),
        _box(image, low),
        _box(base, fine),
        _box(base, low),
        inside,
        covered,
        keep_factor(patch, face_size_px(patch)),
        _fine_weight(patch),
        starts,
        widths,
    )
