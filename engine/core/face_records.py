"""What the face stages learn about each face, carried in `FramePacket.faces`.

Detector → `Face.detection`; landmarker → `landmarks`, `presence`; fitter → `fit`;
swapper → `patch` (the new face rendered over its frame region); enhancer refines
`patch`; compositor blends `patch` into `FramePacket.output`.

They live in core, beside the packet, so that `FramePacket.faces` is typed: records are
plain data (they need only core's types and resampling), and a packet in the bottom
layer could not name a type from the face package above it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.resample import shrink
from engine.core.types import F32, Frame, Landmarks, Mask

# MediaPipe's BlazeFace keypoint order (subject's right eye first, as seen in the image left).
KEYPOINT_NAMES = ("right_eye", "left_eye", "nose_tip", "mouth", "right_ear", "left_ear")


@dataclass(slots=True)
class Detection:
    box: F32  # x0, y0, x1, y1 in frame pixels
    keypoints: F32  # 6×2 frame pixels, KEYPOINT_NAMES order
    score: float

    @property
    def width(self) -> float:
        return float(self.box[2] - self.box[0])

    @property
    def center(self) -> tuple[float, float]:
        return float(self.box[0] + self.box[2]) / 2, float(self.box[1] + self.box[3]) / 2


@dataclass(slots=True)
class Pose:
    rotation: NDArray[np.float64]  # 3×3, canonical face → camera (x right, y down, z away)
    translation: NDArray[np.float64]  # 3, pixels (z relative)
    scale: float  # canonical units → pixels
    yaw_deg: float
    pitch_deg: float
    roll_deg: float


@dataclass(slots=True)
class FaceFit:
    """3DMM-style parameters of one face."""

    pose: Pose
    identity: F32  # 468×3 pose-normalised offsets from the canonical mesh
    expression: F32  # compact vector, names in engine.face.fit.EXPRESSION_NAMES
    canonical_landmarks: F32  # 468×3 the face in canonical pose (pose removed)
    # The lighting, or how to fit it: see `lighting`.
    light_fit: F32 | Callable[[], F32] = field(repr=False)

    @property
    def lighting(self) -> F32:
        """9×3 spherical-harmonics coefficients (BGR), albedo-normalised. Fitted when
        first read: the live path does not read it (the swap takes its light from smooth
        skin fields, engine/swap/shading.py), and it cost 0.9 ms a face every frame."""
        if callable(self.light_fit):
            self.light_fit = self.light_fit()
        return self.light_fit


@dataclass(slots=True)
class FacePatch:
    """A rendered face over a rectangle of the frame, ready to composite.

    Its pixels may be coarser than the frame's: a large face is rendered at a fixed
    working resolution (engine/swap/renderer.py) and resampled once, when composited.
    `frame_size` is then the (width, height) of the frame rectangle at (x0, y0) that the
    h×w patch covers, edge to edge."""

    x0: int
    y0: int
    image: F32  # h×w×3 BGR float32 0..255
    mask: Mask  # h×w, where the new face may replace the target (before feathering)
    keep_mask: Mask | None = None  # h×w, target pixels to keep (mouth interior, occluders)
    detail_sigma: float = 0.0  # blur applied so the render's fine detail matches the target
    scale_px: float = 0.0  # the face's inter-ocular distance in patch pixels (0: unknown)
    features: Mask | None = None  # h×w, 1 on eyes, brows and lips (identity detail)
    frame_size: tuple[int, int] | None = None  # (w, h) covered in the frame; None: h×w
    # The input frame under the patch on the patch's grid (h×w×3 uint8), as the renderer
    # sampled it; None when it kept none. What `frame_in_patch` would resample again.
    input_sample: Frame | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.mask.shape[0]), int(self.mask.shape[1])

    @property
    def box_size(self) -> tuple[int, int]:
        """(width, height) of the frame rectangle the patch covers."""
        if self.frame_size is not None:
            return self.frame_size
        h, w = self.shape
        return w, h

    @property
    def resampled(self) -> bool:
        return self.box_size != (self.shape[1], self.shape[0])

    @property
    def rect(self) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1): the frame rectangle the patch covers."""
        w, h = self.box_size
        return self.x0, self.y0, self.x0 + w, self.y0 + h

    def frame_box(self, frame: Frame) -> Frame:
        """The frame rectangle under the patch (a view)."""
        x0, y0, x1, y1 = self.rect
        return frame[y0:y1, x0:x1]

    def frame_in_patch(self, frame: Frame) -> F32:
        """The frame under the patch on the patch's own pixel grid (float32)."""
        region = self.frame_box(frame)
        if not self.resampled:
            return region.astype(np.float32)
        h, w = self.shape
        return shrink(region, (w, h)).astype(np.float32)

    def input_in_patch(self, frame: Frame) -> F32:
        """`frame_in_patch` for the input frame, or a copy not yet written under the
        patch: the renderer's own sample of it when it kept one (the same pixels, without
        resampling the face's box a second time: 0.56 ms at 720p on the 2-core machine)."""
        if self.input_sample is None:
            return self.frame_in_patch(frame)
        return self.input_sample.astype(np.float32)

    def on_frame_grid(self, values: NDArray[np.float32]) -> NDArray[np.float32]:
        """A patch-grid array (image or mask) resampled onto its frame rectangle."""
        if not self.resampled:
            return values
        return cv2.resize(values, self.box_size, interpolation=cv2.INTER_LINEAR)

    def to_patch(self, points: NDArray[np.floating]) -> NDArray[np.float64]:
        """Frame pixel coordinates (…×2) → the patch's (pixel centres at integers)."""
        w, h = self.shape[1], self.shape[0]
        bw, bh = self.box_size
        k = np.array([w / bw, h / bh])
        origin = np.array([self.x0, self.y0], np.float64)
        return (np.asarray(points, np.float64) - origin + 0.5) * k - 0.5

    def patch_to_frame(self) -> NDArray[np.float64]:
        """2×3 affine taking patch pixel coordinates to frame pixel coordinates."""
        w, h = self.shape[1], self.shape[0]
        bw, bh = self.box_size
        kx, ky = bw / w, bh / h
        return np.array([[kx, 0.0, self.x0 + 0.5 * kx - 0.5], [0.0, ky, self.y0 + 0.5 * ky - 0.5]])


@dataclass(slots=True)
class Face:
    track_id: int
    detection: Detection | None = None
    landmarks: Landmarks | None = None  # 468×3 frame pixels (z: relative depth, x scale)
    presence: float = 0.0
    # 2×3: (x, y, radius) in frame pixels of the subject's right and left iris, from the
    # iris model (which also refined the landmarks' eyes); None where it did not run.
    irises: F32 | None = None
    fit: FaceFit | None = None
    patch: FacePatch | None = None
    extras: dict[str, object] = field(default_factory=dict)
