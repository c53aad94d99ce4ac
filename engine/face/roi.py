"""Rotated square regions of interest around a face, and the crops they define."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.faces import Detection
from engine.types import Affine

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
