"""Compositor stage: feathered face mask, target mouth kept, blended back into the frame.

Only pixels under the feathered mask change; everything else is the input frame, pixel
for pixel.
"""

from __future__ import annotations

from typing import ClassVar

import cv2
import numpy as np

from engine.faces import FacePatch
from engine.packet import FramePacket
from engine.settings import CompositorSettings, EngineSettings
from engine.types import Frame, Mask


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def blend_mask(patch: FacePatch, settings: CompositorSettings) -> Mask:
    """Erode the face coverage, feather it inward, and cut out what must stay target."""
    h, w = patch.shape
    face_px = float(np.sqrt(patch.mask.sum()))  # side of a square of the face's area
    feather = max(1.0, settings.mask_feather * face_px)
    erode = int(round(settings.mask_erode * face_px + feather))
    mask = patch.mask
    if erode > 0:
        mask = cv2.erode(mask, _disk(erode), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    # σ = feather/2: the soft edge ends where the erosion started, never on uncovered pixels.
    mask = cv2.GaussianBlur(mask, (0, 0), feather / 2)
    if patch.keep_mask is not None:
        keep = cv2.dilate(patch.keep_mask, _disk(1))
        keep = cv2.GaussianBlur(keep, (0, 0), max(0.8, face_px * 0.004))
        mask = mask * (1.0 - keep)
    return mask.reshape(h, w)


def composite(frame: Frame, out: Frame, patch: FacePatch, settings: CompositorSettings) -> None:
    """Blend one patch into `out` (a copy of `frame`) in place."""
    h, w = patch.shape
    ys, xs = slice(patch.y0, patch.y0 + h), slice(patch.x0, patch.x0 + w)
    alpha = blend_mask(patch, settings)
    if settings.poisson:
        _poisson(frame, out, patch, alpha)
        return
    base = out[ys, xs].astype(np.float32)
    a = alpha[..., None]
    blended = base + (patch.image - base) * a
    region = np.clip(blended + 0.5, 0, 255).astype(np.uint8)
    # Where alpha is 0 the frame stays bit-exact (rounding could otherwise nudge it).
    untouched = alpha <= 0.0
    region[untouched] = out[ys, xs][untouched]
    out[ys, xs] = region


def _poisson(frame: Frame, out: Frame, patch: FacePatch, alpha: Mask) -> None:
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
    centre = (w // 2 + pad, h // 2 + pad)
    x, y, bw, bh = cv2.boundingRect(mask_p)
    centre = (x + bw // 2, y + bh // 2)
    cloned = cv2.seamlessClone(src_p, canvas, mask_p, centre, cv2.NORMAL_CLONE)[pad:-pad, pad:-pad]
    base = out[ys, xs].astype(np.float32)
    a = alpha[..., None]
    region = np.clip(base + (cloned.astype(np.float32) - base) * a + 0.5, 0, 255).astype(np.uint8)
    untouched = alpha <= 0.0
    region[untouched] = out[ys, xs][untouched]
    out[ys, xs] = region
    del frame


class CompositeStage:
    name: ClassVar[str] = "compositor"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        patches = [f.patch for f in packet.faces if f.patch is not None]
        if not patches:
            return packet
        out = np.array(packet.frame, copy=True)
        for patch in patches:
            composite(packet.frame, out, patch, settings.compositor)
        packet.output = out
        return packet
