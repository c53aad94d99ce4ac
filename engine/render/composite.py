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
from engine.render.blend import two_band_blend


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


def _ramp(inside: np.ndarray, start_px: float, width_px: float) -> np.ndarray:
    t = np.clip((inside - start_px) * (1.0 / width_px), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)  # smoothstep: no kink where the ramp meets 0 or 1


def keep_factor(patch: FacePatch, face_px: float) -> Mask:
    """Where the target must show through (1 = keep): the mouth interior and occluders,
    with a ~1 px soft edge."""
    if patch.keep_mask is None:
        return np.zeros(patch.shape, np.float32)
    keep = cv2.dilate(patch.keep_mask, _disk(1))
    return cv2.GaussianBlur(keep, (0, 0), max(0.8, face_px * 0.004)).astype(np.float32)


def blend_masks(
    patch: FacePatch, settings: CompositorSettings, inside: np.ndarray
) -> tuple[Mask, Mask]:
    """(colour alpha, texture alpha). Colour: 0 outside the eroded face, a smooth ramp
    `2·feather` wide, 1 inside. Texture (fine detail): the same ramp moved `texture_inset`
    further in, so where the new face's colour fades into the frame the skin texture is
    still the frame's own — no band of foreign pores, stubble or smoothness at the seam.
    Both have the target's mouth interior cut out with a ~1 px soft edge."""
    face_px = face_size_px(patch)
    feather = max(settings.min_feather_px, settings.mask_feather * face_px)
    erode = settings.mask_erode * face_px
    colour = _ramp(inside, erode, 2.0 * feather)
    texture = _ramp(inside, erode + settings.texture_inset * face_px, 2.0 * feather)
    keep = 1.0 - keep_factor(patch, face_px)
    colour *= keep
    texture *= keep
    # Only rendered pixels may change: the soft mouth edge must not reach into the
    # uncovered mouth hole, where the patch holds no face.
    covered = patch.mask > 0.5
    colour *= covered
    texture *= covered
    return colour.astype(np.float32), texture.astype(np.float32)


def blend_mask(patch: FacePatch, settings: CompositorSettings, inside: np.ndarray) -> Mask:
    """The colour alpha alone (what changes at all)."""
    return blend_masks(patch, settings, inside)[0]


_DETAIL_SIGMA = 0.006  # of face size: finer than this counts as skin texture


def composite(out: Frame, patch: FacePatch, settings: CompositorSettings) -> None:
    """Blend one patch into `out` (a copy of `frame`) in place."""
    h, w = patch.shape
    ys, xs = slice(patch.y0, patch.y0 + h), slice(patch.x0, patch.x0 + w)
    inside = inside_distance(patch)
    if settings.poisson:
        _poisson(out, patch, blend_mask(patch, settings, inside))
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


def _poisson(out: Frame, patch: FacePatch, alpha: Mask) -> None:
    """Quality mode: gradient-domain blend of the face (colours meet the frame's at the
    seam), then the feathered mask still limits what changes."""
    h, w = patch.shape
    ys, xs = slice(patch.y0, patch.y0 + h), slice(patch.x0, patch.x0 + w)
    binary = (alpha > 0.05).astype(np.uint8) * 255
    if binary.sum() == 0 or min(h, w) < 8:
        return
    src = np.clip(patch.image, 0, 255).astype(np.uint8)
    # seamlessClone needs a margin around the mask inside the destination.
    pad = 4
    canvas = cv2.copyMakeBorder(out[ys, xs], pad, pad, pad, pad, cv2.BORDER_REFLECT)
    src_p = cv2.copyMakeBorder(src, pad, pad, pad, pad, cv2.BORDER_REFLECT)
    mask_p = cv2.copyMakeBorder(binary, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    x, y, bw, bh = cv2.boundingRect(mask_p)
    centre = (x + bw // 2, y + bh // 2)
    cloned = cv2.seamlessClone(src_p, canvas, mask_p, centre, cv2.NORMAL_CLONE)[pad:-pad, pad:-pad]
    base = out[ys, xs].astype(np.float32)
    a = alpha[..., None]
    region = np.clip(base + (cloned.astype(np.float32) - base) * a + 0.5, 0, 255).astype(np.uint8)
    untouched = alpha <= 0.0
    region[untouched] = out[ys, xs][untouched]
    out[ys, xs] = region
