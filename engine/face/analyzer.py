"""Detector + mesh models bundled together: what every face stage and the source loader use."""

from __future__ import annotations

import numpy as np

from engine.core.paths import MODELS_DIR
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import DetectionSettings, ExecutionProvider
from engine.core.types import Frame
from engine.face.detector import BlazeFaceDetector, main_face_index
from engine.face.landmarker import FaceMesh
from engine.face.records import Detection, Face
from engine.face.roi import roi_from_detection, roi_from_landmarks
from engine.models.onnx import load_model

_MIN_FRAME_PX = 16


def usable_frame(frame: object) -> bool:
    """True for a BGR uint8 image big enough to hold a face; anything else is skipped."""
    return (
        isinstance(frame, np.ndarray)
        and frame.dtype == np.uint8
        and frame.ndim == 3
        and frame.shape[2] == 3
        and min(frame.shape[:2]) >= _MIN_FRAME_PX
    )


class FaceAnalyzer:
    """Shared, thread-safe (onnxruntime sessions allow concurrent runs) face models."""

    def __init__(self, short: BlazeFaceDetector, full: BlazeFaceDetector, mesh: FaceMesh) -> None:
        self.short = short
        self.full = full
        self.mesh = mesh

    @classmethod
    def bundled(cls, provider: ExecutionProvider = "auto") -> FaceAnalyzer:
        def load(name: str) -> object:
            return load_model(MODELS_DIR / f"{name}.onnx", name=name, provider=provider)

        return cls(
            BlazeFaceDetector.short_range(load("face_detection_short_range")),  # type: ignore[arg-type]
            BlazeFaceDetector.full_range(load("face_detection_full_range")),  # type: ignore[arg-type]
            FaceMesh(load("face_landmark")),  # type: ignore[arg-type]
        )

    @property
    def providers(self) -> tuple[str, ...]:
        seen: list[str] = []
        for model in (self.short.model, self.full.model, self.mesh.model):
            seen += [p for p in model.providers[:1] if p not in seen]
        return tuple(seen)

    def detect(
        self, frame: Frame, settings: DetectionSettings, steps: StepTimer = NO_STEPS
    ) -> list[Detection]:
        """Faces in a frame. "auto" uses the full-range model, which also finds faces a
        tenth of the frame wide that the short-range model misses, and asks the
        short-range model when it finds none: a face filling most of the frame (a webcam
        at arm's length, a close-up portrait) can score below threshold on the full-range
        model (0.47 on a clear frontal close-up where short range scores 0.91)."""
        if not usable_frame(frame):
            return []
        threshold, min_px = settings.score_threshold, settings.min_face_px
        if settings.model == "short":
            return self.short.detect(frame, threshold, min_px, steps)
        found = self.full.detect(frame, threshold, min_px, steps)
        if found or settings.model == "full":
            return found
        with steps.step("short_range"):
            return self.short.detect(frame, threshold, min_px, steps)

    def analyze_image(
        self, frame: Frame, settings: DetectionSettings | None = None, refine: bool = True
    ) -> list[Face]:
        """Detect and mesh every face of a still image, the main face first."""
        settings = settings or DetectionSettings()
        detections = self.detect(frame, settings)
        if not detections:
            return []
        main = main_face_index(detections, (frame.shape[1], frame.shape[0]))
        order = [main] + [i for i in range(len(detections)) if i != main]
        faces = []
        for rank, index in enumerate(order[: settings.max_faces]):
            det = detections[index]
            result = self.mesh.run(frame, roi_from_detection(det))
            if refine and result.presence >= 0.5:
                # The second pass crops around the mesh itself, as tracking would.
                result = self.mesh.run(frame, roi_from_landmarks(result.landmarks))
            if result.presence >= 0.5:
                faces.append(Face(rank, det, result.landmarks, result.presence))
        return faces
