"""Checking each converted model against TFLite, on random inputs and on a real face photo,
and recording the result in its manifest entry."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from .anchors import decode_best_box, generate_anchors
from .imaging import letterbox, square_crop, to_range
from .runners import OnnxRunner, TfliteRunner


def compare(ref: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> dict[str, float]:
    """Max abs difference per output (outputs matched by name)."""
    if set(ref) != set(got):
        raise AssertionError(f"output names differ: tflite {sorted(ref)} vs onnx {sorted(got)}")
    out = {}
    for name, r in ref.items():
        if r.shape != got[name].shape:
            raise AssertionError(f"{name}: shape {r.shape} vs {got[name].shape}")
        out[name] = float(np.max(np.abs(r.astype(np.float64) - got[name])))
    return out


def check_close(
    label: str, ref: dict[str, np.ndarray], diffs: dict[str, float], atol: float
) -> None:
    """Assert each output is within ``atol`` scaled by the output's magnitude (>= 1).

    Outputs come in very different units (logits, 0..1 probabilities, up to ~hundreds of
    pixels for raw box offsets), so the bound is ``atol * max(1, max|ref|)``.
    """
    for name, diff in diffs.items():
        bound = atol * max(1.0, float(np.max(np.abs(ref[name]))))
        if not diff <= bound:
            raise AssertionError(f"{label}: output {name} differs by {diff:.3g} > {bound:.3g}")


def real_inputs(
    image: Any, entries: dict[str, dict[str, Any]], models: dict[str, bytes]
) -> dict[str, tuple[np.ndarray, str]]:
    """Real-photo inputs per model, with a note of how they were made.

    Detectors get the letterboxed photo; the landmark models get a face crop found with
    the converted short-range detector (so the decoding options are exercised too), the
    iris model a crop round one eye found with the converted face mesh.
    """
    out: dict[str, tuple[np.ndarray, str]] = {}
    for name in ("face_detection_short_range", "face_detection_full_range", "palm_detection"):
        if name in entries:
            e = entries[name]
            out[name] = (
                letterbox(image, e["input"]["shape"][1], e["input"]["range"]).tensor,
                "letterboxed photo",
            )
    det = entries["face_detection_short_range"]
    lb = letterbox(image, det["input"]["shape"][1], det["input"]["range"])
    raw = OnnxRunner(models["face_detection_short_range"])(lb.tensor)
    boxes, scores = raw[det["outputs"][0]["name"]], raw[det["outputs"][1]["name"]]
    score, box = decode_best_box(boxes, scores, generate_anchors(det["anchors"]), det["anchors"])
    if score < det["anchors"]["min_score_thresh"]:
        raise AssertionError(f"short-range detector found no face in the photo (best {score:.3f})")
    size = det["input"]["shape"][1]
    box_px = (box * size - np.array([lb.pad_x, lb.pad_y, lb.pad_x, lb.pad_y])) / lb.scale
    print(f"  detector: face score {score:.3f}, box (px) {np.round(box_px).astype(int).tolist()}")
    for name in ("face_landmark", "hand_landmark"):
        if name in entries:
            e = entries[name]
            crop = square_crop(image, box_px, 1.5, e["input"]["shape"][1])
            out[name] = (to_range(crop, e["input"]["range"]), "face crop 1.5x around the detection")
    if "iris_landmark" in entries:
        out["iris_landmark"] = (
            _eye_input(image, box_px, entries, models),
            "crop 2.3x around mesh 33/133 (the converted face mesh on the face crop), unrotated",
        )
    return out


def _eye_input(
    image: Any, box_px: np.ndarray, entries: dict[str, dict[str, Any]], models: dict[str, bytes]
) -> np.ndarray:
    """The iris model's input for the eye between mesh corners 33 and 133 (not turned by
    their line: a check input, not MediaPipe's exact crop)."""
    mesh = entries["face_landmark"]
    size = mesh["input"]["shape"][1]
    face = to_range(square_crop(image, box_px, 1.5, size), mesh["input"]["range"])
    raw = OnnxRunner(models["face_landmark"])(face)
    points = raw[mesh["outputs"][0]["name"]].reshape(-1, 3)[[33, 133], :2]
    # square_crop's square: side 1.5 × the box's longer side, on the box centre.
    x0, y0, x1, y1 = box_px
    side = 1.5 * max(x1 - x0, y1 - y0)
    corners = np.array([x0 + x1 - side, y0 + y1 - side]) / 2 + points * side / size
    iris = entries["iris_landmark"]
    crop = square_crop(
        image, np.concatenate([corners.min(0), corners.max(0)]), 2.3, iris["input"]["shape"][1]
    )
    return to_range(crop, iris["input"]["range"])


def verify(
    name: str,
    entry: dict[str, Any],
    source: Path,
    model: bytes,
    photo: tuple[np.ndarray, str],
    rng: np.random.Generator,
    trials: int,
    atol: float,
) -> None:
    """Compare the ONNX model with TFLite on random and real inputs; record the result in
    its manifest entry."""
    ref_runner, onnx_runner = TfliteRunner(source), OnnxRunner(model)
    lo, hi = entry["input"]["range"]
    shape = [d if isinstance(d, int) else 1 for d in entry["input"]["shape"]]  # "batch": 1
    worst: dict[str, float] = {}
    for trial in range(trials):
        x = rng.uniform(lo, hi, size=shape).astype(np.float32)
        ref = ref_runner(x)
        diffs = compare(ref, onnx_runner(x))
        check_close(f"{name} random #{trial}", ref, diffs, atol)
        worst = {k: max(v, worst.get(k, 0.0)) for k, v in diffs.items()}
    x, how = photo
    ref = ref_runner(x)
    got = onnx_runner(x)
    real = compare(ref, got)
    check_close(f"{name} photo", ref, real, atol)
    entry["verification"] = {
        "reference": (
            "tf.lite.Interpreter (TensorFlow Lite runtime, default XNNPACK "
            "delegate) on the original .tflite"
        ),
        "random_inputs": {
            "trials": trials,
            "max_abs_diff": {k: float(f"{v:.3g}") for k, v in worst.items()},
        },
        "photo_input": {
            "how": how,
            "max_abs_diff": {k: float(f"{v:.3g}") for k, v in real.items()},
        },
    }
    entry["max_abs_diff_vs_tflite"] = float(f"{max([*worst.values(), *real.values()]):.3g}")
    print(f"  {name}: random {worst}  photo {real}")
    if name == "face_landmark":
        flag = got[entry["outputs"][1]["name"]].reshape(-1)[0]
        presence = 1.0 / (1.0 + math.exp(-float(flag)))
        print(f"  face presence on the photo: {presence:.4f}")
        if presence < entry["postprocessing"]["presence_threshold"]:
            raise AssertionError("face_landmark does not see the face in the crop")
