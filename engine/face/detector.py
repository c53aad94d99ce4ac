"""BlazeFace face detection on onnxruntime: letterbox, decode anchors, weighted NMS."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.face_records import Detection
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import Frame
from engine.core.unit_scale import to_signed
from engine.face.anchors import AnchorSpec, anchor_spec
from engine.models.onnx import LoadedModel

# Both BlazeFace heads: 16 values per anchor = box (cx, cy, w, h) + 6 keypoints (x, y).
_NUM_KEYPOINTS = 6
_NMS_IOU = 0.3  # MediaPipe's min_suppression_threshold for face detection


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How a frame was fitted into the square model input (to map results back)."""

    scale: float  # model pixels per frame pixel
    pad_x: float  # model pixels of padding on the left
    pad_y: float

    def to_frame(self, xy: NDArray[np.float32], size: int) -> NDArray[np.float32]:
        """Normalised model coordinates → frame pixels."""
        out = np.empty_like(xy)
        out[..., 0] = (xy[..., 0] * size - self.pad_x) / self.scale
        out[..., 1] = (xy[..., 1] * size - self.pad_y) / self.scale
        return out


def letterbox(frame: Frame, size: int) -> tuple[NDArray[np.float32], Letterbox]:
    """Resize keeping the aspect ratio, pad to a square, RGB in [-1, 1], NHWC batch of 1."""
    h, w = frame.shape[:2]
    scale = size / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA)
    pad_x, pad_y = (size - nw) // 2, (size - nh) // 2
    square = cv2.copyMakeBorder(
        small, pad_y, size - nh - pad_y, pad_x, size - nw - pad_x, cv2.BORDER_CONSTANT, value=0
    )
    rgb = cv2.cvtColor(square, cv2.COLOR_BGR2RGB)
    tensor = to_signed(rgb)
    return tensor[None], Letterbox(scale, float(pad_x), float(pad_y))


def decode_anchors(
    raw: NDArray[Any],
    logits: NDArray[Any],
    anchors: NDArray[np.float32],
    *,
    num_keypoints: int,
    size: int,
    box: Letterbox,
    score_threshold: float,
    logit_clip: float,
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]]:
    """The SSD heads of MediaPipe's BlazeFace-family detectors (face, palm) → candidates.

    `raw` holds per anchor a box (cx, cy, w, h) then `num_keypoints` (x, y) offsets, in
    model pixels relative to the anchor centre; `logits` one score each. Returns the
    candidates scoring at least `score_threshold`: corner boxes n×4 and keypoints n×k×2 in
    frame pixels, and their scores (sigmoid of the logit clipped to ±`logit_clip`)."""
    coords = raw.reshape(-1, 4 + 2 * num_keypoints)
    scores = 1.0 / (1.0 + np.exp(-np.clip(logits.reshape(-1), -logit_clip, logit_clip)))
    keep = np.flatnonzero(scores >= score_threshold)
    # Float32 from here on (model outputs, anchors); numpy's stubs would say float64.
    rel: Any = coords[keep] / size
    scores, near = scores[keep], anchors[keep]
    centre = rel[:, 0:2] + near
    half = rel[:, 2:4] / 2
    corners = np.stack([centre - half, centre + half], axis=1)  # (n, 2, 2) normalised
    kps = rel[:, 4:].reshape(-1, num_keypoints, 2) + near[:, None, :]
    corners_px = box.to_frame(corners, size).reshape(-1, 4)
    return corners_px, box.to_frame(kps, size), scores.astype(np.float32)


def weighted_nms(
    boxes: NDArray[np.float32], keypoints: NDArray[np.float32], scores: NDArray[np.float32]
) -> list[tuple[NDArray[np.float32], NDArray[np.float32], float]]:
    """MediaPipe's WEIGHTED suppression: overlapping candidates are averaged by score,
    which steadies the box far more than keeping only the best candidate."""
    order = np.argsort(-scores)
    boxes, keypoints, scores = boxes[order], keypoints[order], scores[order]
    remaining = np.arange(len(scores))
    results = []
    while remaining.size:
        top = boxes[remaining[0]]
        cand = boxes[remaining]
        ix0 = np.maximum(top[0], cand[:, 0])
        iy0 = np.maximum(top[1], cand[:, 1])
        ix1 = np.minimum(top[2], cand[:, 2])
        iy1 = np.minimum(top[3], cand[:, 3])
        inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
        area_top = (top[2] - top[0]) * (top[3] - top[1])
        areas = (cand[:, 2] - cand[:, 0]) * (cand[:, 3] - cand[:, 1])
        iou = inter / np.maximum(area_top + areas - inter, 1e-9)
        group = remaining[iou > _NMS_IOU]
        weights = scores[group] / scores[group].sum()
        box = (boxes[group] * weights[:, None]).sum(axis=0)
        kps = (keypoints[group] * weights[:, None, None]).sum(axis=0)
        results.append((box.astype(np.float32), kps.astype(np.float32), float(scores[group[0]])))
        remaining = remaining[iou <= _NMS_IOU]
    return results


class BlazeFaceDetector:
    """One BlazeFace model (short range 128 px or full range 192 px)."""

    def __init__(self, model: LoadedModel, spec: AnchorSpec) -> None:
        self.model = model
        self.spec = spec
        self.anchors = spec.generate()
        inputs = model.session.get_inputs()
        self._input_name = inputs[0].name
        self._nchw = inputs[0].shape[1] == 3
        outputs = model.session.get_outputs()
        # Identify the heads by their last dimension, not by converter-given names.
        self._box_index = next(i for i, o in enumerate(outputs) if o.shape[-1] == 16)
        self._score_index = next(i for i, o in enumerate(outputs) if o.shape[-1] == 1)

    @classmethod
    def short_range(cls, model: LoadedModel) -> BlazeFaceDetector:
        return cls(model, anchor_spec("face_detection_short_range"))

    @classmethod
    def full_range(cls, model: LoadedModel) -> BlazeFaceDetector:
        return cls(model, anchor_spec("face_detection_full_range"))

    def detect(
        self,
        frame: Frame,
        score_threshold: float = 0.5,
        min_face_px: float = 0.0,
        steps: StepTimer = NO_STEPS,
    ) -> list[Detection]:
        size = self.spec.input_size
        with steps.step("letterbox"):
            tensor, box = letterbox(frame, size)
            if self._nchw:
                tensor = np.ascontiguousarray(tensor.transpose(0, 3, 1, 2))
        with steps.step("ort_run"):
            outputs = self.model.session.run(None, {self._input_name: tensor})
        with steps.step("decode"):
            corners_px, kps_px, scores = decode_anchors(
                outputs[self._box_index],
                outputs[self._score_index],
                self.anchors,
                num_keypoints=_NUM_KEYPOINTS,
                size=size,
                box=box,
                score_threshold=score_threshold,
                logit_clip=80.0,
            )
        if scores.size == 0:
            return []
        with steps.step("nms"):
            return [
                Detection(b, k, s)
                for b, k, s in weighted_nms(corners_px, kps_px, scores)
                if b[2] - b[0] >= min_face_px
            ]


def main_face_index(detections: list[Detection], frame_size: tuple[int, int]) -> int:
    """The face a single-face swap should use: large, confident and near the centre."""
    w, h = frame_size
    diag = float(np.hypot(w, h))
    best, best_score = 0, -np.inf
    for i, d in enumerate(detections):
        cx, cy = d.center
        size = d.width / max(w, 1)
        closeness = 1.0 - float(np.hypot(cx - w / 2, cy - h / 2)) / (diag / 2)
        value = 2.0 * size + 0.5 * d.score + 0.5 * closeness
        if value > best_score:
            best, best_score = i, value
    return best
