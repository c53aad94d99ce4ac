"""What the manifest records of each model's MediaPipe graph: input preprocessing, SSD
anchor and decoding options, landmark post-processing; plain JSON values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .graph_configs import GraphConfigs

ANCHOR_KEYS = (
    "num_layers",
    "min_scale",
    "max_scale",
    "input_size_height",
    "input_size_width",
    "anchor_offset_x",
    "anchor_offset_y",
    "strides",
    "aspect_ratios",
    "fixed_anchor_size",
    "interpolated_scale_aspect_ratio",
    "reduce_boxes_in_lowest_layer",
)
DETECTION_KEYS = (
    "num_classes",
    "num_boxes",
    "num_coords",
    "box_coord_offset",
    "keypoint_coord_offset",
    "num_keypoints",
    "num_values_per_keypoint",
    "x_scale",
    "y_scale",
    "w_scale",
    "h_scale",
    "sigmoid_score",
    "score_clipping_thresh",
    "min_score_thresh",
    "reverse_output_order",
)


def proto_fields(msg: Any, keys: Sequence[str]) -> dict[str, Any]:
    """Return ``keys`` of a proto message as plain JSON values (defaults included)."""
    out: dict[str, Any] = {}
    for key in keys:
        fd = msg.DESCRIPTOR.fields_by_name[key]
        value = getattr(msg, key)
        if fd.label == fd.LABEL_REPEATED:
            out[key] = [_json_number(v) for v in value]
        else:
            out[key] = _json_number(value)
    return out


def _json_number(value: Any) -> Any:
    # Proto floats are float32; print them with the precision they were written with.
    if isinstance(value, float):
        return float(f"{value:.7g}")
    return value


def image_to_tensor_spec(opts: Any, width: int, height: int) -> dict[str, Any]:
    """Summarize ``ImageToTensorCalculatorOptions`` (size may come from option_value)."""
    border = opts.DESCRIPTOR.fields_by_name["border_mode"].enum_type.values_by_number
    return {
        "output_tensor_width": opts.output_tensor_width or width,
        "output_tensor_height": opts.output_tensor_height or height,
        "output_tensor_float_range": [
            _json_number(opts.output_tensor_float_range.min),
            _json_number(opts.output_tensor_float_range.max),
        ],
        "keep_aspect_ratio": bool(opts.keep_aspect_ratio),
        "border_mode": border[opts.border_mode].name if opts.HasField("border_mode") else None,
    }


def detector_info(wrapper: str) -> Callable[[GraphConfigs], dict[str, Any]]:
    def info(g: GraphConfigs) -> dict[str, Any]:
        p = g.protos
        anchors = proto_fields(
            g.face_detection_options(
                wrapper, "SsdAnchorsCalculator", p.ssd.SsdAnchorsCalculatorOptions
            ),
            ANCHOR_KEYS,
        )
        decode = proto_fields(
            g.face_detection_options(
                wrapper, "TensorsToDetectionsCalculator", p.t2d.TensorsToDetectionsCalculatorOptions
            ),
            DETECTION_KEYS,
        )
        nms = g.options(
            "FaceDetection", "NonMaxSuppressionCalculator", p.nms.NonMaxSuppressionCalculatorOptions
        )
        i2t = g.face_detection_options(
            wrapper, "ImageToTensorCalculator", p.i2t.ImageToTensorCalculatorOptions
        )
        fd = g.options(wrapper, "FaceDetection", p.face_detection.FaceDetectionOptions)
        return {
            "anchors": {
                **anchors,
                **decode,
                "min_suppression_threshold": _json_number(nms.min_suppression_threshold),
            },
            "image_to_tensor": image_to_tensor_spec(i2t, fd.tensor_width, fd.tensor_height),
            "graph": f"{wrapper} -> FaceDetection",
        }

    return info


def palm_info(g: GraphConfigs) -> dict[str, Any]:
    p = g.protos
    anchors = proto_fields(
        g.options("PalmDetectionCpu", "SsdAnchorsCalculator", p.ssd.SsdAnchorsCalculatorOptions),
        ANCHOR_KEYS,
    )
    decode = proto_fields(
        g.options(
            "PalmDetectionCpu",
            "TensorsToDetectionsCalculator",
            p.t2d.TensorsToDetectionsCalculatorOptions,
        ),
        DETECTION_KEYS,
    )
    nms = g.options(
        "PalmDetectionCpu", "NonMaxSuppressionCalculator", p.nms.NonMaxSuppressionCalculatorOptions
    )
    i2t = g.options(
        "PalmDetectionCpu", "ImageToTensorCalculator", p.i2t.ImageToTensorCalculatorOptions
    )
    return {
        "anchors": {
            **anchors,
            **decode,
            "min_suppression_threshold": _json_number(nms.min_suppression_threshold),
        },
        "image_to_tensor": image_to_tensor_spec(i2t, 0, 0),
        "graph": "PalmDetectionCpu",
    }


def _landmark_common(g: GraphConfigs, graph: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A landmark graph's input spec, and how its presence score is read."""
    p = g.protos
    i2t = g.options(graph, "ImageToTensorCalculator", p.i2t.ImageToTensorCalculatorOptions)
    t2f = g.options(graph, "TensorsToFloatsCalculator", p.t2f.TensorsToFloatsCalculatorOptions)
    thr = g.options(graph, "ThresholdingCalculator", p.thresh.ThresholdingCalculatorOptions)
    activation = (
        t2f.DESCRIPTOR.fields_by_name["activation"].enum_type.values_by_number[t2f.activation].name
    )
    presence = {
        "presence_activation": activation,
        "presence_threshold": _json_number(thr.threshold),
    }
    return image_to_tensor_spec(i2t, 0, 0), presence


def face_landmark_info(g: GraphConfigs) -> dict[str, Any]:
    image_to_tensor, presence = _landmark_common(g, "FaceLandmarkCpu")
    return {
        "image_to_tensor": image_to_tensor,
        "postprocessing": {
            "num_landmarks": 468,
            "landmark_units": "input-tensor pixels (x, y, z); divide by 192 to normalize",
            **presence,
        },
        "graph": "FaceLandmarkCpu (with_attention=false)",
    }


def hand_landmark_info(g: GraphConfigs) -> dict[str, Any]:
    image_to_tensor, presence = _landmark_common(g, "HandLandmarkCpu")
    p = g.protos
    lm = [
        n
        for n in g.graphs["HandLandmarkCpu"].node
        if n.calculator == "TensorsToLandmarksCalculator"
        and n.options.HasExtension(p.t2l.TensorsToLandmarksCalculatorOptions.ext)
    ]
    lm_opts = [n.options.Extensions[p.t2l.TensorsToLandmarksCalculatorOptions.ext] for n in lm]
    image_lm = next(o for o in lm_opts if o.input_image_width)
    return {
        "image_to_tensor": image_to_tensor,
        "postprocessing": {
            "num_landmarks": image_lm.num_landmarks,
            "input_image_width": image_lm.input_image_width,
            "input_image_height": image_lm.input_image_height,
            "normalize_z": _json_number(image_lm.normalize_z),
            **presence,
        },
        "graph": "HandLandmarkCpu",
    }


# The iris graphs (mediapipe/modules/iris_landmark/iris_landmark_cpu.pbtxt,
# iris_landmark_landmarks_to_roi.pbtxt, iris_landmark_left_and_right_cpu.pbtxt) are not
# compiled into the wheel's library, so their few values are written here from MediaPipe's
# source; the refinement mapping is read from the wheel.
IRIS_GRAPHS = (
    "IrisLandmarkLeftAndRightCpu -> IrisLandmarkLandmarksToRoi, IrisLandmarkCpu "
    "(not in the wheel's library: values from MediaPipe's iris_landmark/*.pbtxt)"
)
IRIS_CROP = {
    "corners": "two mesh landmarks per eye; the box of the two, rotated by the line from "
    "the first to the second (DetectionsToRectsCalculator, target angle 0)",
    "scale": 2.3,
    "square_long": True,
    "border_mode": "BORDER_REPLICATE",
    "flip_horizontally": "the eye MediaPipe calls right (is_right_eye): the model is "
    "trained on the other one only; its output x is flipped back",
}


def iris_info(g: GraphConfigs) -> dict[str, Any]:
    """The iris model's crop and where its 71 eye points go in the 468-point mesh."""
    refine = g.options(
        "TensorsToFaceLandmarksWithAttention",
        "LandmarksRefinementCalculator",
        g.protos.refine.LandmarksRefinementCalculatorOptions,
    )
    eye_maps = [list(r.indexes_mapping) for r in refine.refinement if len(r.indexes_mapping) == 71]
    if len(eye_maps) != 2:
        raise LookupError(f"expected two 71-point eye refinements, found {len(eye_maps)}")
    eyes = []
    for name, corners, mesh_ids in (
        ("left", [33, 133], eye_maps[0]),
        ("right", [362, 263], eye_maps[1]),
    ):
        if not set(corners) <= set(mesh_ids[:9]):
            raise AssertionError(f"{name} eye: corners {corners} not in its lower lid")
        eyes.append(
            {"mediapipe_name": name, "corners": corners, "flipped": name == "right",
             "mesh_ids": mesh_ids}
        )  # fmt: skip
    return {
        "image_to_tensor": {
            "output_tensor_width": 64,
            "output_tensor_height": 64,
            "output_tensor_float_range": [0.0, 1.0],
            "keep_aspect_ratio": True,
            "border_mode": "BORDER_REPLICATE",
        },
        "eye_crop": {**IRIS_CROP, "eyes": eyes},
        "refinement": {
            "graph": "TensorsToFaceLandmarksWithAttention (LandmarksRefinementCalculator), "
            "the same 71-point eye layout",
            "lid_points": 16,
            "lid_layout": "lower lid corner to corner (9), upper lid without the corners (7)",
            "z_refinement": "none",
        },
        "postprocessing": {
            "num_eye_landmarks": 71,
            "num_iris_landmarks": 5,
            "landmark_units": "input-tensor pixels (x, y, z); divide by 64 to normalize",
        },
        "graph": IRIS_GRAPHS,
    }
