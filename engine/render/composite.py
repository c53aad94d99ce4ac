"""Compositor maths: the new face blended into the frame band by band.

The face is split into four frequency bands, each blended over its own ramp across the
distance from the face's edge (all widths in inter-ocular distances, IOD, so they scale
with the face):
- low (broad light and colour, coarser than `SPLIT_LOW`): over `seam_width`, so a
  difference in light or skin tone at the edge fades in over a quarter of an IOD;
- mid (the features' shapes: eyes, brows, nose, lips, beard, coarser than `SPLIT_MID`):
  over `MID_RAMP`, so identity reaches close to the edge;
- texture (skin texture: stubble, wrinkles, JPEG blocks, between `SPLIT_FINE` and
  `SPLIT_MID`): over `TEXTURE_RAMP`, which starts further in and is wider, so along the
  edge the frame keeps its own texture and the new face's plain skin does not end in a
  smooth (or a differently textured) band;
- fine (grain, pores, sharpness, finer than `SPLIT_FINE`): the source's only on its
  features (eyes, brows, lips); on plain skin the frame keeps its own camera
  grain and sharpness, so the new face is exactly as sharp as the frame around it.
The target's mouth interior and occluders (hands) show through with a ~1 px soft edge.
Only pixels under the rendered face change; everything else is the input frame, pixel
for pixel. The compositor stage (engine/stages/composite.py) and the gallery's
mini-previews (engine/swap/preview.py) both blend with `composite`.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.face_records import FacePatch
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import CompositorSettings
from engine.core.types import F32, Frame, Mask
from engine.render.blend import add_resampled_rows, band_delta, with_weight

SPLIT_FINE = 0.03  # IOD: box size splitting fine from mid
SPLIT_LOW = 0.25  # IOD: box size splitting mid from low
SPLIT_MID = 0.10  # IOD: box size splitting texture from mid
# IOD: (start, width) of the texture band. Measured on DEV+WIDE (with the whole nose,
# engine/swap/shape.py, which leaves seams as they were): no texture band (SPLIT_MID =
# SPLIT_FINE) |seam grad| 0.102, leave-source-out 86.9 %; split 0.08 with (0.05, 0.25):
# 0.084 and 86.9 %; 0.10 with (0.05, 0.25): 0.077 and 85.2 %; 0.10 with (0.02, 0.2):
# 0.086 and 86.9 %; 0.12 with (0.03, 0.2): 0.080 and 83.6 % (one pair is 1.6 points).
# Expression, pose and sharpness barely moved (0.0287–0.0292, 1.07°, 0.16–0.17).
TEXTURE_RAMP = (0.05, 0.25)
MID_RAMP = 0.12  # IOD: ramp width of the mid band
FINE_RAMP = (0.04, 0.12)  # IOD: (start, width) of the fine band, on features only


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def face_size_px(patch: FacePatch) -> float:
    """Side of a square with the face's area (a fallback unit when no IOD is known)."""
    return float(np.sqrt(patch.mask.sum()))


def patch_iod(patch: FacePatch) -> float:
    """The face's inter-ocular distance in the patch's pixels."""
    return patch.scale_px if patch.scale_px > 0 else face_size_px(patch) / 1.7


def inside_distance(patch: FacePatch) -> np.ndarray:
    """Distance (px) from each face pixel to the face's outer edge (the mouth, a hole the
    target shows through, is not an edge here: it gets its own narrow feather)."""
    face = patch.mask > 0.5
    if patch.keep_mask is not None:
        face |= patch.keep_mask > 0.5
    return cv2.distanceTransform(face.astype(np.uint8), cv2.DIST_L2, 5)


def keep_factor(patch: FacePatch) -> Mask:
    """Where the target must show through (1 = keep): the mouth interior and occluders,
    with a ~1 px soft edge."""
    if patch.keep_mask is None:
        return np.zeros(patch.shape, np.float32)
    keep = cv2.dilate(patch.keep_mask, _disk(1))
    sigma = max(0.8, patch_iod(patch) * 0.007)
    return cv2.GaussianBlur(keep, (0, 0), sigma).astype(np.float32)


def box(image: F32, size_px: float) -> F32:
    """`image` box-filtered over an odd square of about `size_px`."""
    k = 2 * max(1, round(size_px / 2)) + 1
    return cv2.blur(image, (k, k))


def _boxes(image: F32, splits: tuple[float, float, float]) -> tuple[F32, F32, F32]:
    """`image` box-filtered at each of the three splits (px), coarse first."""
    return box(image, splits[0]), box(image, splits[1]), box(image, splits[2])


def blend_delta(base: F32, patch: FacePatch, settings: CompositorSettings) -> F32:
    """What the face adds to `base` (the frame under the patch, float, same grid)."""
    iod = patch_iod(patch)
    covered = np.ascontiguousarray(patch.mask, dtype=np.float32)
    image = np.ascontiguousarray(patch.image, dtype=np.float32)
    start = settings.mask_erode * iod
    splits = (SPLIT_LOW * iod, SPLIT_MID * iod, SPLIT_FINE * iod)
    ramps = [
        (start, settings.seam_width * iod),  # low
        (start, MID_RAMP * iod),  # mid
        (start + TEXTURE_RAMP[0] * iod, TEXTURE_RAMP[1] * iod),  # texture
        (start + FINE_RAMP[0] * iod, FINE_RAMP[1] * iod),  # fine
    ]
    features = (
        np.ones(patch.shape, np.float32)
        if patch.features is None
        else np.ascontiguousarray(patch.features, np.float32)
    )
    # The face's bands from its own pixels only (a masked box filter, normalised in the
    # kernel): filled in with the frame instead, its edge would be a step that the mid
    # band carries as a seam.
    return band_delta(
        image,
        _boxes(with_weight(image, covered), splits),
        base,
        _boxes(base, splits),
        inside_distance(patch),
        covered,
        keep_factor(patch),
        features,
        np.array([r[0] for r in ramps], np.float32),
        np.maximum(np.array([r[1] for r in ramps], np.float32), 1.0),
    )


def composite(
    out: Frame,
    patch: FacePatch,
    settings: CompositorSettings,
    steps: StepTimer = NO_STEPS,
    untouched: bool = False,
) -> None:
    """Blend one patch into `out` (a copy of the frame) in place. `untouched`: nothing
    has been blended into `out` under this patch yet, so the frame there is the input's
    (and the patch's own sample of it can stand in for resampling it).

    A patch at the working resolution (coarser than the frame) is blended on its own
    grid, against the frame resampled to it, and only the change is resampled into the
    frame: the frame keeps its full-resolution detail wherever the face leaves it."""
    region = patch.frame_box(out)
    with steps.step("frame_in"):
        base = patch.input_in_patch(out) if untouched else patch.frame_in_patch(out)
    with steps.step("bands"):
        delta = blend_delta(base, patch, settings)
    with steps.step("frame_out"):
        add_delta(region, delta)


def add_delta(region: Frame, delta: F32) -> None:
    """`region` (uint8, a view into the frame with whole pixels contiguous) += `delta`
    resampled (bilinearly, with cv2.resize's pixel centres) onto it, rounded and
    saturated, in place. A change under half a grey level leaves a pixel exactly as it
    was; where the face adds nothing the frame is untouched.

    The horizontal pass is OpenCV's (SIMD, on the patch's few rows); the vertical pass
    and the add are one compiled loop: 0.8 ms for a 570 px face box against 1.5 for a
    full resize and a saturating add (the 2-core machine)."""
    height, width = region.shape[:2]
    if region.strides[1:] != (3, 1):
        raise ValueError("add_delta needs a frame region with contiguous BGR pixels")
    if delta.shape[1] != width:
        delta = cv2.resize(delta, (width, delta.shape[0]), interpolation=cv2.INTER_LINEAR)
    flat = np.lib.stride_tricks.as_strided(region, (height, width * 3), (region.strides[0], 1))
    add_resampled_rows(flat, np.ascontiguousarray(delta).reshape(delta.shape[0], width * 3))
