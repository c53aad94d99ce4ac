"""Mini-previews for the source gallery: the newest analysed frame swapped with another
face, small and cheap (a face-sized crop scaled to a thumbnail, one render)."""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.types import Frame, Landmarks
from engine.face.fit import FaceFitter
from engine.render.composite import composite
from engine.swap.library import SourceLibrary
from engine.swap.renderer import FaceRenderer

_CROP_MARGIN = 1.7  # crop side / face size: some hair and background around the face


class FacePreviewer:
    """Owns the renderer and fitter a preview needs (built once; not thread-bound)."""

    def __init__(self) -> None:
        self.fitter = FaceFitter()
        self.renderer = FaceRenderer(self.fitter)

    def render(
        self,
        packet: FramePacket,
        key: str,
        library: SourceLibrary,
        settings: EngineSettings,
        max_side: int = 160,
    ) -> Frame:
        """The packet's main face swapped with `key`, as a square-ish thumbnail; the
        frame itself (scaled) when there is no face or the key is unknown."""
        frame = packet.frame
        identity = library.get(key)
        face = preview_face(packet)
        if identity is None or face is None or face.landmarks is None:
            return scaled(frame, max_side)
        lm = face.landmarks
        box = preview_box(lm, frame.shape)
        if box is None:
            return scaled(frame, max_side)
        x0, y0, x1, y1 = box
        scale = max_side / max(x1 - x0, y1 - y0)
        small = thumbnail(frame, box, max_side)
        landmarks = ((lm - np.array([x0, y0, 0], np.float32)) * scale).astype(np.float32)
        small_face = Face(face.track_id, landmarks=landmarks, fit=self.fitter.fit(small, landmarks))
        patch = self.renderer.render(
            small, small_face, identity, settings.swap, color_match=settings.compositor.color_match
        )
        if patch is None:
            return small
        out = np.array(small, copy=True)
        composite(out, patch, settings.compositor)
        return out


def preview_face(packet: FramePacket) -> Face | None:
    """The face a preview shows: the first with a mesh."""
    return next((f for f in packet.faces if f.landmarks is not None), None)


def preview_box(landmarks: Landmarks, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1): the face with some hair and background, within the frame; None
    when too little of it is inside."""
    (fx0, fy0), (fx1, fy1) = landmarks[:, :2].min(axis=0), landmarks[:, :2].max(axis=0)
    half = max(fx1 - fx0, fy1 - fy0) * _CROP_MARGIN / 2
    cx, cy = (fx0 + fx1) / 2, (fy0 + fy1) / 2
    h, w = shape[:2]
    x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
    x1, y1 = min(w, int(cx + half)), min(h, int(cy + half))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    return x0, y0, x1, y1


def thumbnail(frame: Frame, box: tuple[int, int, int, int], max_side: int) -> Frame:
    """`box` of the frame, its longer side scaled to `max_side`."""
    x0, y0, x1, y1 = box
    scale = max_side / max(x1 - x0, y1 - y0)
    return cv2.resize(frame[y0:y1, x0:x1], None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def scaled(frame: Frame, max_side: int) -> Frame:
    """The whole frame as a thumbnail (no face to show)."""
    scale = max_side / max(frame.shape[:2])
    return cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
