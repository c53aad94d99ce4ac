"""Renders faces at a lower internal resolution (`settings.quality.internal_scale`).

The swapper's cost grows with the face's pixel area (rasterising, texture lookup,
colour match); the governor's last rungs trade that detail for time. `scale_faces`
gives the swapper (engine/stages/select.py) a downscaled frame and faces whose every
pixel quantity is scaled to match, and `paste_back` scales each rendered patch back to
frame pixels. Detection and mesh are untouched: their models see fixed-size crops
whatever the frame size.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.core.face_records import Face, FacePatch
from engine.core.types import Frame

_FULL = 0.999
_MARGIN = 0.5  # of the face's size, around the faces: room for shape change and alignment


def scale_face(face: Face, s: float, origin: tuple[int, int] = (0, 0)) -> Face:
    """A copy of `face` in the frame region starting at `origin`, scaled by `s` (pixel
    quantities move and scale; shape, expression and light are unit-free)."""
    ox, oy = origin
    xy = np.array([ox, oy], np.float32)
    scaled = dataclasses.replace(face, patch=None)
    if face.landmarks is not None:
        scaled.landmarks = (face.landmarks - np.array([ox, oy, 0], np.float32)) * np.float32(s)
    if face.detection is not None:
        d = face.detection
        scaled.detection = dataclasses.replace(
            d, box=(d.box - np.tile(xy, 2)) * np.float32(s), keypoints=(d.keypoints - xy) * s
        )
    if face.fit is not None:
        pose = face.fit.pose
        moved = (pose.translation - np.array([ox, oy, 0.0])) * s
        scaled.fit = dataclasses.replace(
            face.fit, pose=dataclasses.replace(pose, scale=pose.scale * s, translation=moved)
        )
    return scaled


def faces_region(
    faces: list[Face], frame_size: tuple[int, int], margin: float = _MARGIN
) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) around every meshed face, with a margin; None if none is meshed."""
    width, height = frame_size
    boxes = []
    for face in faces:
        if face.landmarks is None:
            continue
        lo, hi = face.landmarks[:, :2].min(axis=0), face.landmarks[:, :2].max(axis=0)
        pad = margin * float(max(hi - lo))
        boxes.append((lo[0] - pad, lo[1] - pad, hi[0] + pad, hi[1] + pad))
    if not boxes:
        return None
    b = np.array(boxes)
    x0, y0 = max(0, math.floor(b[:, 0].min())), max(0, math.floor(b[:, 1].min()))
    x1, y1 = min(width, math.ceil(b[:, 2].max())), min(height, math.ceil(b[:, 3].max()))
    return (x0, y0, x1, y1) if x1 - x0 >= 8 and y1 - y0 >= 8 else None


def _affine(kx: float, ky: float, tx: float, ty: float) -> np.ndarray:
    return np.array([[kx, 0.0, tx], [0.0, ky, ty], [0.0, 0.0, 1.0]])


def upscale_patch(
    patch: FacePatch, s: float, origin: tuple[int, int], frame_size: tuple[int, int]
) -> FacePatch | None:
    """A patch rendered in the scaled region, moved onto the frame: on a pixel grid of the
    same density, aligned with a whole-pixel rectangle of the frame (the compositor
    resamples it into the frame)."""
    width, height = frame_size
    ox, oy = origin
    h, w = patch.shape
    bw, bh = patch.box_size
    x0, y0 = ox + math.floor(patch.x0 / s), oy + math.floor(patch.y0 / s)
    x1 = min(width, ox + math.ceil((patch.x0 + bw) / s))
    y1 = min(height, oy + math.ceil((patch.y0 + bh) / s))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    density = (w / bw) * s  # patch pixels per frame pixel
    nw, nh = max(2, round((x1 - x0) * density)), max(2, round((y1 - y0) * density))
    kx, ky = (x1 - x0) / nw, (y1 - y0) / nh
    # New patch pixel → frame pixel → scaled region pixel → old patch pixel (centres).
    to_frame = _affine(kx, ky, x0 + 0.5 * kx - 0.5, y0 + 0.5 * ky - 0.5)
    to_small = _affine(s, s, (0.5 - ox) * s - 0.5, (0.5 - oy) * s - 0.5)
    to_old = _affine(
        w / bw, h / bh, (0.5 - patch.x0) * w / bw - 0.5, (0.5 - patch.y0) * h / bh - 0.5
    )
    m = (to_old @ to_small @ to_frame)[:2]
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP

    def warp(a: np.ndarray, border: int) -> np.ndarray:
        return cv2.warpAffine(a, m, (nw, nh), flags=flags, borderMode=border, borderValue=0)

    def warp_mask(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else warp(a, cv2.BORDER_CONSTANT).astype(np.float32)

    mask = warp_mask(patch.mask)
    assert mask is not None
    return FacePatch(
        x0,
        y0,
        warp(patch.image, cv2.BORDER_REPLICATE).astype(np.float32),
        mask,
        warp_mask(patch.keep_mask),
        patch.detail_sigma,
        patch.scale_px * (density / s) / (w / bw) if patch.scale_px > 0 else 0.0,
        warp_mask(patch.features),
        frame_size=(x1 - x0, y1 - y0),
    )


@dataclass(frozen=True, slots=True)
class ScaledFaces:
    """The faces' region of a frame, scaled down, and copies of the faces in it: what the
    swapper renders on instead of the frame."""

    frame: Frame
    faces: list[Face]
    scale: float  # region pixels per frame pixel
    origin: tuple[int, int]  # the region's top-left corner in the frame
    frame_size: tuple[int, int]  # (width, height) of the full frame

    def paste_back(self, faces: Sequence[Face]) -> None:
        """Give each of `faces` (the originals, in order) its rendered patch, scaled back
        to frame pixels."""
        for face, small_face in zip(faces, self.faces, strict=True):
            if small_face.patch is not None:
                face.patch = upscale_patch(
                    small_face.patch, self.scale, self.origin, self.frame_size
                )


def scale_faces(frame: Frame, faces: Sequence[Face], s: float) -> ScaledFaces | None:
    """The faces' region at internal scale `s`; None when the swapper should render on
    the frame itself (scale 1, the default, or no meshed face)."""
    if s >= _FULL or not faces:
        return None
    height, width = frame.shape[:2]
    region = faces_region(list(faces), (width, height))
    if region is None:
        return None
    # Only the faces' region is scaled (a whole-frame resize would cost more than the
    # smaller render saves); one factor for both axes, as the pose scale is isotropic.
    x0, y0, x1, y1 = region
    small_w = max(1, round((x1 - x0) * s))
    sx = small_w / (x1 - x0)
    small = cv2.resize(
        frame[y0:y1, x0:x1],
        (small_w, max(1, round((y1 - y0) * sx))),
        interpolation=cv2.INTER_LINEAR,
    )
    scaled = [scale_face(f, sx, (x0, y0)) for f in faces]
    return ScaledFaces(small, scaled, sx, (x0, y0), (width, height))
