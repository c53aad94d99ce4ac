"""MediaPipe's iris model on onnxruntime: from the 468-point mesh's eye corners, a 64×64
crop per eye (both in one run), giving each eye's lid contour, rings round it and brow
(71 points) and its iris (centre and radius).

The 468-point mesh barely closes its lids on a blink; this model, run on a close crop of
each eye, closes them much further, and it adds the iris. Only the 16 lid points replace
mesh vertices: moving the rings and brow too made the swap's identity worse
(leave-source-out retrieval on DEV+WIDE 73.8 % with the lids alone, 57.4 % with all 71;
docs/swap.md). The crop, the mirroring and the vertex mapping are MediaPipe's (the
manifest's ``iris_landmark`` entry records them and where they come from;
tests/engine/face/test_iris.py checks these constants against it).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.paths import MODELS_DIR
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import ExecutionProvider
from engine.core.types import F32, Affine, Frame, Landmarks
from engine.core.unit_scale import to_unit
from engine.models.onnx import LoadedModel, load_model

MODEL_NAME = "iris_landmark"
CROP_PX = 64
# Crop side over the longer side of the eye corners' axis-aligned box (MediaPipe's
# IrisLandmarkLandmarksToRoi: scale 2.3, square_long).
CROP_SCALE = 2.3
NUM_EYE_POINTS = 71
NUM_IRIS_POINTS = 5
# The first 16 eye points are the opening itself: the lower lid, corner to corner (9),
# then the upper lid without the corners (7); the rest are rings round it and the brow.
NUM_LID_POINTS = 16
# Eyes wider than this between their corners (frame px) are refined; below it the crop
# holds a handful of pixels and the model's output is noise.
MIN_EYE_PX = 4.0

# The 468-mesh vertex each of the model's 71 eye points refines (MediaPipe's landmark
# refinement), per subject's eye. The right eye (corners 33, 133; image left in an
# unmirrored frame) is cropped as is, the left one (362, 263) mirrored: the model was
# trained on one side.
RIGHT_EYE_MESH_IDS: NDArray[np.intp] = np.array(
    [33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173,
     130, 25, 110, 24, 23, 22, 26, 112, 243, 247, 30, 29, 27, 28, 56, 190,
     226, 31, 228, 229, 230, 231, 232, 233, 244, 113, 225, 224, 223, 222, 221, 189,
     35, 124, 46, 53, 52, 65, 143, 111, 117, 118, 119, 120, 121, 128, 245,
     156, 70, 63, 105, 66, 107, 55, 193],
    dtype=np.intp,
)  # fmt: skip
LEFT_EYE_MESH_IDS: NDArray[np.intp] = np.array(
    [263, 249, 390, 373, 374, 380, 381, 382, 362, 466, 388, 387, 386, 385, 384, 398,
     359, 255, 339, 254, 253, 252, 256, 341, 463, 467, 260, 259, 257, 258, 286, 414,
     446, 261, 448, 449, 450, 451, 452, 453, 464, 342, 445, 444, 443, 442, 441, 413,
     265, 353, 276, 283, 282, 295, 372, 340, 346, 347, 348, 349, 350, 357, 465,
     383, 300, 293, 334, 296, 336, 285, 417],
    dtype=np.intp,
)  # fmt: skip
# (outer/first corner, second corner, upper lid middle, lower lid middle) per eye.
RIGHT_EYE_KEYS = (33, 133, 159, 145)
LEFT_EYE_KEYS = (362, 263, 386, 374)


@dataclass(frozen=True, slots=True)
class RefinedEye:
    """One eye, in frame pixels."""

    mesh_ids: NDArray[np.intp]  # (71,) the 468-mesh vertex each contour point replaces
    contour: F32  # (71, 2): lid opening (first NUM_LID_POINTS), then rings and brow
    iris: F32  # (5, 2): the iris centre, then 4 points on its edge
    iris_radius_px: float  # mean distance of the 4 edge points from the centre

    @property
    def iris_center(self) -> F32:
        return self.iris[0]

    @property
    def lids(self) -> F32:
        """(16, 2): the opening's contour, lower lid corner to corner, then upper lid."""
        return self.contour[:NUM_LID_POINTS]


@dataclass(frozen=True, slots=True)
class EyeRefinement:
    """Both eyes of one face; ``right`` is the subject's right eye (mesh 33/133)."""

    right: RefinedEye
    left: RefinedEye

    def apply(self, landmarks: Landmarks) -> Landmarks:
        """A copy of the 468 landmarks with the 32 lid vertices' x, y replaced; z stays the
        mesh's (as MediaPipe's refinement does: the model's z is relative to its crop)."""
        out = np.array(landmarks, dtype=np.float32, copy=True)
        for eye in (self.right, self.left):
            out[eye.mesh_ids[:NUM_LID_POINTS], :2] = eye.lids
        return out


def eye_openness(landmarks: NDArray[np.floating]) -> tuple[float, float]:
    """(right, left) lid gap over eye width: |159−145| / |33−133| and |386−374| / |362−263|
    of a 468-point mesh (refined or not); about 0.3 open, under 0.1 shut."""
    p = np.asarray(landmarks, dtype=np.float64)[:, :2]
    keys = np.array([RIGHT_EYE_KEYS, LEFT_EYE_KEYS])
    gap = np.linalg.norm(p[keys[:, 2]] - p[keys[:, 3]], axis=1)
    width = np.linalg.norm(p[keys[:, 0]] - p[keys[:, 1]], axis=1)
    ratio = gap / np.maximum(width, 1e-6)
    return float(ratio[0]), float(ratio[1])


def eye_crop_affines(landmarks: NDArray[np.floating]) -> tuple[Affine, Affine] | None:
    """Per eye (right, left), the 2×3 map from model-input coordinates (0..64, continuous)
    to frame pixels (pixel centres at integers); None when an eye is under MIN_EYE_PX.

    MediaPipe's crop: centred on the corners' midpoint, turned by their line, of side
    CROP_SCALE × the longer side of their axis-aligned box; the left eye's is mirrored.
    """
    p = np.asarray(landmarks, dtype=np.float64)[:, :2]
    out = []
    for (a, b, _, _), mirror in ((RIGHT_EYE_KEYS, False), (LEFT_EYE_KEYS, True)):
        d = p[b] - p[a]
        if not np.all(np.isfinite(d)) or max(abs(d[0]), abs(d[1])) < MIN_EYE_PX:
            return None
        scale = CROP_SCALE * max(abs(d[0]), abs(d[1])) / CROP_PX
        cos, sin = d / np.linalg.norm(d)
        linear = scale * np.array([[cos, -sin], [sin, cos]])
        if mirror:
            linear[:, 0] *= -1.0  # model x runs backwards along the eye line
        centre = (p[a] + p[b]) / 2
        out.append(np.column_stack([linear, centre - linear @ (CROP_PX / 2, CROP_PX / 2)]))
    return out[0], out[1]


class EyeRefiner:
    """Runs the iris model on both eyes of a face; shared and thread-safe like FaceMesh."""

    def __init__(self, model: LoadedModel) -> None:
        self.model = model
        inp = model.session.get_inputs()[0]
        # Both eyes run as one batch: the converter makes the batch dimension dynamic.
        if isinstance(inp.shape[0], int) or list(inp.shape[1:]) != [CROP_PX, CROP_PX, 3]:
            raise ValueError(
                f"{model.path.name}: expected a (batch, 64, 64, 3) input, got {inp.shape}"
            )
        self._input_name = inp.name
        outputs = {int(o.shape[-1]): o.name for o in model.session.get_outputs()}
        self._outputs = [outputs[NUM_EYE_POINTS * 3], outputs[NUM_IRIS_POINTS * 3]]

    @classmethod
    def bundled(cls, provider: ExecutionProvider = "auto") -> EyeRefiner:
        path = MODELS_DIR / f"{MODEL_NAME}.onnx"
        return cls(load_model(path, name=MODEL_NAME, provider=provider))

    def crops(self, frame: Frame, affines: tuple[Affine, Affine]) -> F32:
        """(2, 64, 64, 3) RGB in [0, 1]: the model's input for both eyes; the frame's edge
        is repeated outside it (MediaPipe's BORDER_REPLICATE)."""
        tensor = np.empty((2, CROP_PX, CROP_PX, 3), np.float32)
        for i, affine in enumerate(affines):
            # Output pixel i covers model coordinates [i, i + 1]: sample at its centre.
            sample = affine.copy()
            sample[:, 2] += affine[:, :2] @ (0.5, 0.5)
            crop = cv2.warpAffine(
                frame,
                sample,
                (CROP_PX, CROP_PX),
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE,
            )
            tensor[i] = to_unit(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))
        return tensor

    def refine(
        self, frame: Frame, landmarks: NDArray[np.floating], steps: StepTimer = NO_STEPS
    ) -> EyeRefinement | None:
        """Both eyes of the face whose 468 landmarks (frame pixels) are given; None when
        an eye is too small to refine (under MIN_EYE_PX between its corners)."""
        points = np.asarray(landmarks)
        if points.ndim != 2 or points.shape[0] != 468 or points.shape[1] < 2:
            raise ValueError(f"expected 468×2 or 468×3 landmarks, got shape {points.shape}")
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 frame, got {frame.dtype} {frame.shape}")
        affines = eye_crop_affines(points)
        if affines is None:
            return None
        with steps.step("crop"):
            tensor = self.crops(frame, affines)
        with steps.step("ort_run"):
            eyes, irises = self.model.session.run(self._outputs, {self._input_name: tensor})
        with steps.step("decode"):
            right, left = (
                _to_frame(eye, iris, affine, ids)
                for eye, iris, affine, ids in zip(
                    eyes, irises, affines, (RIGHT_EYE_MESH_IDS, LEFT_EYE_MESH_IDS), strict=True
                )
            )
            return EyeRefinement(right, left)


def _to_frame(
    eye: NDArray[np.float32], iris: NDArray[np.float32], affine: Affine, ids: NDArray[np.intp]
) -> RefinedEye:
    contour = eye.reshape(NUM_EYE_POINTS, 3)[:, :2] @ affine[:, :2].T + affine[:, 2]
    ring = iris.reshape(NUM_IRIS_POINTS, 3)[:, :2] @ affine[:, :2].T + affine[:, 2]
    radius = float(np.linalg.norm(ring[1:] - ring[0], axis=1).mean())
    return RefinedEye(ids, contour.astype(np.float32), ring.astype(np.float32), radius)
