"""MediaPipe's 468-point face mesh on onnxruntime: crop a rotated ROI, run, map back."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import Frame, Landmarks
from engine.face.roi import Roi, crop_points_to_frame, crop_rgb
from engine.models.onnx import LoadedModel

NUM_LANDMARKS = 468


@dataclass(frozen=True, slots=True)
class MeshResult:
    landmarks: Landmarks  # 468×3 frame pixels; z relative depth in x-pixel units
    presence: float  # 0..1 probability that the crop holds a face


class FaceMesh:
    def __init__(self, model: LoadedModel) -> None:
        self.model = model
        inp = model.session.get_inputs()[0]
        self._input_name = inp.name
        self._nchw = inp.shape[1] == 3
        self.size = int(inp.shape[2] if self._nchw else inp.shape[1])
        outputs = model.session.get_outputs()
        sizes = [int(np.prod([d for d in o.shape if isinstance(d, int)])) for o in outputs]
        self._mesh_index = sizes.index(NUM_LANDMARKS * 3)
        self._presence_index = sizes.index(1)

    def crop(self, frame: Frame, roi: Roi) -> NDArray[np.float32]:
        tensor = crop_rgb(frame, roi, self.size)[None]
        return np.ascontiguousarray(tensor.transpose(0, 3, 1, 2)) if self._nchw else tensor

    def run(self, frame: Frame, roi: Roi, steps: StepTimer = NO_STEPS) -> MeshResult:
        with steps.step("crop"):
            tensor = self.crop(frame, roi)
        with steps.step("ort_run"):
            outputs = self.model.session.run(None, {self._input_name: tensor})
        with steps.step("decode"):
            raw = outputs[self._mesh_index].reshape(NUM_LANDMARKS, 3).astype(np.float64)
            logit = float(outputs[self._presence_index].reshape(-1)[0])
            presence = 1.0 / (1.0 + np.exp(-np.clip(logit, -60.0, 60.0)))
            return MeshResult(crop_points_to_frame(raw, roi, self.size), float(presence))
