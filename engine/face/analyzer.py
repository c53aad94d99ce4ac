"""Detector + mesh models bundled together: what every face stage and the source loader use."""

from __future__ import annotations

import numpy as np

from engine.core.face_records import Detection, Face
from engine.core.paths import MODELS_DIR
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import DetectionSettings, ExecutionProvider
from engine.core.types import F32, Frame, Landmarks
from engine.face.detector import BlazeFaceDetector, main_face_index
from engine.face.iris import EyeRefiner
from engine.face.landmarker import FaceMesh
from engine.face.roi import roi_from_detection, roi_from_landmarks
from engine.models.onnx import load_model

_MIN_FRAME_PX = 16
# Eye width (corner to corner, px) from which the iris model's lids are trusted, and
# fully from: on eyes 8–18 px wide (a clip's medium shot) its lids moved 0.15–0.34 of
# the eye's width from frame to frame, and the new face's eyes shook with them.
REFINE_EYE_PX = (12.0, 24.0)


def eye_widths(landmarks: Landmarks) -> tuple[float, float]:
    p = landmarks[:, :2]
    return float(np.linalg.norm(p[33] - p[133])), float(np.linalg.norm(p[362] - p[263]))


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

    def __init__(
        self,
        short: BlazeFaceDetector,
        full: BlazeFaceDetector,
        mesh: FaceMesh,
        eyes: EyeRefiner | None = None,
    ) -> None:
        self.short = short
        self.full = full
        self.mesh = mesh
        self.eyes = eyes

    @classmethod
    def bundled(cls, provider: ExecutionProvider = "auto", eyes: bool = True) -> FaceAnalyzer:
        """The bundled models; `eyes=False` leaves out the iris model (the mesh's own
        lids, as the canonical mesh was derived with)."""

        def load(name: str) -> object:
            return load_model(MODELS_DIR / f"{name}.onnx", name=name, provider=provider)

        return cls(
            BlazeFaceDetector.short_range(load("face_detection_short_range")),  # type: ignore[arg-type]
            BlazeFaceDetector.full_range(load("face_detection_full_range")),  # type: ignore[arg-type]
            FaceMesh(load("face_landmark")),  # type: ignore[arg-type]
            EyeRefiner(load("iris_landmark")) if eyes else None,  # type: ignore[arg-type]
        )

    @property
    def providers(self) -> tuple[str, ...]:
        seen: list[str] = []
        models = [self.short.model, self.full.model, self.mesh.model]
        if self.eyes is not None:
            models.append(self.eyes.model)
        for model in models:
            seen += [p for p in model.providers if p not in seen]
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

    def refine_eyes(
        self, frame: Frame, landmarks: Landmarks, steps: StepTimer = NO_STEPS
    ) -> tuple[Landmarks, F32 | None]:
        """The landmarks with their eyes refined by the iris model, and the irises (2×3:
        x, y, radius per eye); as they were, and None, without the model or when the
        eyes are too small for it.

        The mesh alone barely closes its lids on a blink (a blink read 0.26 of the eye's
        width open where open eyes read 0.28–0.30; refined, 0.22 against 0.36), and has
        no iris: with both, the new face's lids close and its irises look where the
        target's do (engine/swap/eyes.py)."""
        if self.eyes is None:
            return landmarks, None
        width = min(eye_widths(landmarks))
        trust = float(
            np.clip((width - REFINE_EYE_PX[0]) / (REFINE_EYE_PX[1] - REFINE_EYE_PX[0]), 0, 1)
        )
        if trust <= 0.0:
            return landmarks, None
        refined = self.eyes.refine(frame, landmarks, steps)
        if refined is None:
            return landmarks, None
        irises = np.array(
            [[*eye.iris_center, eye.iris_radius_px] for eye in (refined.right, refined.left)],
            np.float32,
        )
        out = refined.apply(landmarks)
        if trust < 1.0:
            out = (landmarks + trust * (out - landmarks)).astype(np.float32)
        return out, irises

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
                landmarks, irises = self.refine_eyes(frame, result.landmarks)
                faces.append(Face(rank, det, landmarks, result.presence, irises=irises))
        return faces
