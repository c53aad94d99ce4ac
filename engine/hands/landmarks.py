"""MediaPipe's 21-point hand landmark model on onnxruntime, and the next frame's crop
from this frame's landmarks (MediaPipe's hand_landmark_landmarks_to_roi rule)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32, Frame
from engine.face.roi import Roi, crop_points_to_frame, crop_rgb
from engine.hands.palm import upright_angle
from engine.models.onnx import LoadedModel

NUM_LANDMARKS = 21
WRIST = 0
INDEX_MCP, MIDDLE_MCP, RING_MCP = 5, 9, 13
# Points MediaPipe measures the tracking box on: the palm and the first finger joints,
# which stay put while fingers curl (the fingertips would make the box breathe).
_ROI_POINTS = np.array([0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18])
_TRACK_SCALE = 2.0
_TRACK_SHIFT_Y = -0.1


@dataclass(frozen=True, slots=True)
class HandResult:
    landmarks: F32  # 21×3 frame pixels; z relative depth in x-pixel units
    presence: float  # 0..1


def roi_from_hand_landmarks(landmarks: NDArray[np.floating]) -> Roi:
    """A rotated square around the hand, fingers up, for the next frame's crop."""
    xy = landmarks[:, :2].astype(np.float64)
    tip = ((xy[INDEX_MCP] + xy[RING_MCP]) / 2 + xy[MIDDLE_MCP]) / 2
    angle = upright_angle(xy[WRIST], tip)
    c, s = math.cos(angle), math.sin(angle)
    pts = xy[_ROI_POINTS]
    # The box in the hand's own (rotated) frame, its centre mapped back to the frame.
    u = pts[:, 0] * c + pts[:, 1] * s
    v = -pts[:, 0] * s + pts[:, 1] * c
    w, h = u.max() - u.min(), v.max() - v.min()
    cu, cv = (u.min() + u.max()) / 2, (v.min() + v.max()) / 2 + _TRACK_SHIFT_Y * h
    return Roi(cu * c - cv * s, cu * s + cv * c, float(max(w, h)) * _TRACK_SCALE, angle)


class HandLandmarker:
    def __init__(self, model: LoadedModel) -> None:
        self.model = model
        inp = model.session.get_inputs()[0]
        self._input_name = inp.name
        self.size = int(inp.shape[1])
        outputs = model.session.get_outputs()
        sizes = [int(np.prod([d for d in o.shape if isinstance(d, int)])) for o in outputs]
        # Outputs in the converted model's order: image landmarks (63), presence (1),
        # handedness (1), world landmarks (63); the first of each size is the one we need.
        self._landmark_index = sizes.index(NUM_LANDMARKS * 3)
        self._presence_index = sizes.index(1)

    def run(self, frame: Frame, roi: Roi) -> HandResult:
        tensor = crop_rgb(frame, roi, self.size)
        outputs = self.model.session.run(None, {self._input_name: tensor[None]})
        raw = outputs[self._landmark_index].reshape(NUM_LANDMARKS, 3).astype(np.float64)
        presence = float(outputs[self._presence_index].reshape(-1)[0])  # already a sigmoid
        return HandResult(crop_points_to_frame(raw, roi, self.size), presence)
