"""MediaPipe's palm detector on onnxruntime: letterbox, SSD anchors, weighted NMS, and
the rotated hand region the landmark model crops (MediaPipe's palm → hand ROI rule)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32, Frame
from engine.face.anchors import anchor_spec
from engine.face.detector import decode_anchors, letterbox, weighted_nms
from engine.face.roi import Roi
from engine.models.onnx import LoadedModel

# The manifest's `anchors` options for palm_detection (MediaPipe's palm_detection_cpu graph):
# 192 px input, strides 8/16/16/16, one fixed-size anchor per aspect ratio plus the
# interpolated one: 24·24·2 + 12·12·6 = 2016 anchors.
PALM_MODEL = "palm_detection"
NUM_KEYPOINTS = 7  # wrist centre, index/middle/ring/pinky MCP, thumb CMC and MCP
_COORDS = 4 + 2 * NUM_KEYPOINTS

# Palm → hand region (MediaPipe's palm_detection_detection_to_roi): the crop's "up" runs
# from the wrist (keypoint 0) to the middle finger's base (keypoint 2); the palm box is
# moved half its height toward the fingers and enlarged 2.6× so the whole hand fits.
WRIST, MIDDLE_MCP = 0, 2
PALM_ROI_SCALE = 2.6
PALM_ROI_SHIFT_Y = -0.5


@dataclass(frozen=True, slots=True)
class Palm:
    box: F32  # x0, y0, x1, y1 frame pixels
    keypoints: F32  # 7×2 frame pixels
    score: float


def upright_angle(base: NDArray[np.floating], tip: NDArray[np.floating]) -> float:
    """Angle (radians, our Roi convention) of a crop whose up axis points base → tip."""
    # The crop's y axis (down) is (-sin a, cos a); it must point from tip to base.
    dx, dy = float(tip[0] - base[0]), float(tip[1] - base[1])
    return math.atan2(-dx, dy) + math.pi


def palm_roi(palm: Palm) -> Roi:
    """The rotated square the hand landmark model should see for this palm."""
    angle = upright_angle(palm.keypoints[WRIST], palm.keypoints[MIDDLE_MCP])
    w = float(palm.box[2] - palm.box[0])
    h = float(palm.box[3] - palm.box[1])
    cx = float(palm.box[0] + palm.box[2]) / 2
    cy = float(palm.box[1] + palm.box[3]) / 2
    # Shift along the crop's own y axis (-sin a, cos a), by the unsquared box height.
    shift = PALM_ROI_SHIFT_Y * h
    cx += -math.sin(angle) * shift
    cy += math.cos(angle) * shift
    return Roi(cx, cy, max(w, h) * PALM_ROI_SCALE, angle)


class PalmDetector:
    def __init__(self, model: LoadedModel) -> None:
        self.model = model
        self.spec = anchor_spec(PALM_MODEL)
        self.anchors = self.spec.generate()
        inputs = model.session.get_inputs()
        self._input_name = inputs[0].name
        outputs = model.session.get_outputs()
        # Heads by their last dimension, not by converter-given names.
        self._box_index = next(i for i, o in enumerate(outputs) if o.shape[-1] == _COORDS)
        self._score_index = next(i for i, o in enumerate(outputs) if o.shape[-1] == 1)
        if len(self.anchors) != outputs[self._box_index].shape[1]:
            raise ValueError(
                f"palm detector {model.path.name}: {outputs[self._box_index].shape[1]} boxes "
                f"but {len(self.anchors)} anchors"
            )

    def detect(self, frame: Frame, score_threshold: float = 0.5) -> list[Palm]:
        size = self.spec.input_size
        tensor, box = letterbox(frame, size)
        tensor = (tensor + 1.0) * 0.5  # the palm model wants [0, 1], not BlazeFace's [-1, 1]
        outputs = self.model.session.run(None, {self._input_name: tensor})
        corners_px, kps_px, scores = decode_anchors(
            outputs[self._box_index],
            outputs[self._score_index],
            self.anchors,
            num_keypoints=NUM_KEYPOINTS,
            size=size,
            box=box,
            score_threshold=score_threshold,
            logit_clip=100.0,
        )
        if scores.size == 0:
            return []
        return [Palm(b, k, s) for b, k, s in weighted_nms(corners_px, kps_px, scores)]
