"""The models to convert: where each lives in the wheel and what the manifest says of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .graph_configs import GraphConfigs
from .graph_info import (
    detector_info,
    face_landmark_info,
    hand_landmark_info,
    iris_info,
    palm_info,
)

LICENCE = "Apache-2.0"
NOTICE = "Copyright Google LLC; MediaPipe, Apache License 2.0"
DETECTOR_BOXES = (
    "per anchor: box (x_center, y_center, w, h) offsets then {k} keypoints (x, y), "
    "in input pixels; decode with anchors"
)
DETECTOR_SCORES = "per anchor: {what} score logit (apply sigmoid after clipping to +-100)"


@dataclass
class ModelSpec:
    """One model to convert and how to check it."""

    name: str
    tflite: str  # relative to the mediapipe package directory
    preprocessing: str
    output_notes: dict[str, str]
    graph_info: Callable[[GraphConfigs], dict[str, Any]]
    optional: bool = False
    dynamic_batch: bool = False  # batch dimension "batch" instead of TFLite's fixed 1
    extra: dict[str, Any] = field(default_factory=dict)


def model_specs(palm_variant: str, hand_variant: str) -> list[ModelSpec]:
    """The models to convert, in order (detectors first: the landmark checks use them)."""
    return [
        ModelSpec(
            name="face_detection_short_range",
            tflite="modules/face_detection/face_detection_short_range.tflite",
            preprocessing="RGB, letterbox to 128x128 keeping aspect (zero border), scale to [-1,1]",
            output_notes={
                "regressors": DETECTOR_BOXES.format(k=6),
                "classificators": DETECTOR_SCORES.format(what="face"),
            },
            graph_info=detector_info("FaceDetectionShortRange"),
        ),
        ModelSpec(
            name="face_detection_full_range",
            tflite="modules/face_detection/face_detection_full_range_sparse.tflite",
            preprocessing="RGB, letterbox to 192x192 keeping aspect (zero border), scale to [-1,1]",
            output_notes={
                "Identity": DETECTOR_BOXES.format(k=6),
                "Identity_1": DETECTOR_SCORES.format(what="face"),
            },
            graph_info=detector_info("FaceDetectionFullRange"),
            extra={
                "variant": (
                    "sparse TFLite model (the only full-range model in the wheel), "
                    "densified before conversion"
                )
            },
        ),
        ModelSpec(
            name="face_landmark",
            tflite="modules/face_landmark/face_landmark.tflite",
            preprocessing=(
                "RGB face crop (MediaPipe: detection rect rotated by the eye line, enlarged "
                "1.5x, square), resized to 192x192, scale to [0,1]"
            ),
            output_notes={
                "conv2d_21": (
                    "468 landmarks x (x, y, z), flattened; x, y in input pixels, "
                    "z in the same scale relative to the face centre"
                ),
                "conv2d_31": "face presence logit (apply sigmoid; threshold 0.5)",
            },
            graph_info=face_landmark_info,
        ),
        ModelSpec(
            name="iris_landmark",
            tflite="modules/iris_landmark/iris_landmark.tflite",
            preprocessing=(
                "RGB eye crop (MediaPipe: box of the eye's two corners, rotated by their "
                "line, 2.3x its longer side, square, edge replicated; MediaPipe's right eye "
                "(mesh 362/263) mirrored), resized to 64x64, scale to [0,1]; both eyes as "
                "one batch"
            ),
            output_notes={
                "output_eyes_contours_and_brows": (
                    "71 eye points x (x, y, z), flattened, in input pixels: lids (16), "
                    "rings round them and the brow; mesh vertices in eye_crop.eyes"
                ),
                "output_iris": "5 iris points x (x, y, z): centre, then 4 on its edge",
            },
            graph_info=iris_info,
            dynamic_batch=True,
        ),
        ModelSpec(
            name="palm_detection",
            tflite=f"modules/palm_detection/palm_detection_{palm_variant}.tflite",
            preprocessing="RGB, letterbox to 192x192 keeping aspect (zero border), scale to [0,1]",
            output_notes={
                "Identity": DETECTOR_BOXES.format(k=7),
                "Identity_1": DETECTOR_SCORES.format(what="palm"),
            },
            graph_info=palm_info,
            optional=True,
            extra={"variant": palm_variant},
        ),
        ModelSpec(
            name="hand_landmark",
            tflite=f"modules/hand_landmark/hand_landmark_{hand_variant}.tflite",
            preprocessing=(
                "RGB hand crop (rotated rect from palm detection), letterbox to 224x224 "
                "keeping aspect, scale to [0,1]"
            ),
            output_notes={
                "Identity": (
                    "21 landmarks x (x, y, z), flattened; x, y in input pixels; "
                    "z / 224 / 0.4 is MediaPipe's relative depth"
                ),
                "Identity_1": "hand presence probability (already sigmoid; threshold 0.5)",
                "Identity_2": (
                    "handedness score (already sigmoid): probability of 'Right' "
                    "(handedness.txt: Left, Right); MediaPipe assumes a mirrored (selfie) image"
                ),
                "Identity_3": "21 world landmarks x (x, y, z) in metres, hand-centred",
            },
            graph_info=hand_landmark_info,
            optional=True,
            extra={"variant": hand_variant},
        ),
    ]
