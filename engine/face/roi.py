"""Rotated square regions of interest (faces, hands), the crops they define, and the
box overlap the trackers match them by."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.face_records import Detection
from engine.core.types import Affine, Frame
from engine.core.unit_scale import to_unit

# Mesh points MediaPipe uses for the eye line (outer eye corners) when tracking.
RIGHT_EYE_CORNER = 33
LEFT_EYE_CORNER = 263
ROI_SCALE = 1.5  # the landmark model expects the face to fill ~2/3 of its crop


@dataclass(frozen=True, slots=True)
class Roi:
    cx: float
    cy: float
    size: float  # side of the square, frame pixels
    angle: float  # radians; the crop's x axis in the frame is (cos a, sin a)

    def crop_to_frame(self, crop_size: int) -> Affine:
        """2×3 affine from crop pixels to frame pixels."""
        s = self.size / crop_size
        c, n = math.cos(self.angle) * s, math.sin(self.angle) * s
        half = crop_size / 2
        return np.array(
            [
                [c, -n, self.cx - c * half + n * half],
                [n, c, self.cy - n * half - c * half],
            ],
            dtype=np.float64,
        )

    def frame_to_crop(self, crop_size: int) -> Affine:
        m = self.crop_to_frame(crop_size)
        linear_inv = np.linalg.inv(m[:, :2])
        return np.hstack([linear_inv, -linear_inv @ m[:, 2:3]])

    def box(self) -> NDArray[np.float32]:
        """Axis-aligned bounding box (x0, y0, x1, y1) of the rotated square."""
        h = self.size / 2 * (abs(math.cos(self.angle)) + abs(math.sin(self.angle)))
        return np.array([self.cx - h, self.cy - h, self.cx + h, self.cy + h], np.float32)


def box_iou(a: NDArray[np.float32], b: NDArray[np.float32]) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes; 0 when both are empty."""
    ix = max(0.0, float(min(a[2], b[2]) - max(a[0], b[0])))
    iy = max(0.0, float(min(a[3], b[3]) - max(a[1], b[1])))
    inter = ix * iy
    union = float((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1])) - inter
    return inter / union if union > 0 else 0.0


def crop_rgb(frame: Frame, roi: Roi, size: int) -> NDArray[np.float32]:
    """The ROI's size×size crop, H×W×3 RGB in [0, 1]: the input MediaPipe's landmark
    models (face mesh, hand) take; outside the frame is black."""
    crop = cv2.warpAffine(
        frame,
        roi.frame_to_crop(size),
        (size, size),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
    )
    return to_unit(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))


def crop_points_to_frame(raw: NDArray[np.floating], roi: Roi, size: int) -> NDArray[np.float32]:
    """N×3 landmark-model points in crop pixels → frame pixels; z (relative depth in crop
    x-pixel units) is scaled the same as x and y."""
    back = roi.crop_to_frame(size)
    xy = raw[:, :2] @ back[:, :2].T + back[:, 2]
    z = raw[:, 2] * (roi.size / size)
    return np.column_stack([xy, z]).astype(np.float32)


def eye_line_angle(p_right: NDArray[np.float32], p_left: NDArray[np.float32]) -> float:
    """Angle of the subject's right→left eye line (image left→right when upright)."""
    return math.atan2(float(p_left[1] - p_right[1]), float(p_left[0] - p_right[0]))


def roi_from_detection(detection: Detection) -> Roi:
    kp = detection.keypoints
    cx, cy = detection.center
    w = detection.box[2] - detection.box[0]
    h = detection.box[3] - detection.box[1]
    return Roi(cx, cy, float(max(w, h)) * ROI_SCALE, eye_line_angle(kp[0], kp[1]))


def roi_from_landmarks(landmarks: NDArray[np.float32]) -> Roi:
    """A tight rotated square: bounds measured in the face's own (eye-line) frame."""
    angle = eye_line_angle(landmarks[RIGHT_EYE_CORNER], landmarks[LEFT_EYE_CORNER])
    c, s = math.cos(angle), math.sin(angle)
    xy = landmarks[:, :2].astype(np.float64)
    # Rotate into the upright face frame, take the box there, map its centre back.
    u = xy[:, 0] * c + xy[:, 1] * s
    v = -xy[:, 0] * s + xy[:, 1] * c
    cu, cv = (u.min() + u.max()) / 2, (v.min() + v.max()) / 2
    size = max(u.max() - u.min(), v.max() - v.min()) * ROI_SCALE
    return Roi(cu * c - cv * s, cu * s + cv * c, float(size), angle)
