"""BlazeFace detection on real faces: single portraits, a group photo, a small face far
from the camera, and the settings (model, score threshold, minimum size) users change."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from engine.core.face_records import Detection
from engine.core.settings import DetectionSettings, DetectorModel
from engine.face.analyzer import FaceAnalyzer
from engine.face.anchors import AnchorSpec, anchor_spec
from engine.face.detector import BlazeFaceDetector, main_face_index, weighted_nms
from engine.models.errors import ManifestError
from engine.models.manifest import load_manifest
from tests.engine.face_data import BUNDLED, GROUP_PHOTO, load, paste, scaled, single_person_params


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled()


def box_iou(a: np.ndarray, b: np.ndarray) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union)


def inside(box: np.ndarray, xy: np.ndarray) -> bool:
    return bool(box[0] <= xy[0] <= box[2] and box[1] <= xy[1] <= box[3])


# --- anchors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "count", "model"),
    [("face_detection_short_range", 896, "short"), ("face_detection_full_range", 2304, "full")],
    ids=["short", "full"],
)
def test_ssd_anchor_grid_matches_the_model(
    analyzer: FaceAnalyzer, name: str, count: int, model: str
) -> None:
    anchors = anchor_spec(name).generate()  # from the manifest's `anchors` options
    assert anchors.shape == (count, 2)
    assert anchors.min() > 0.0
    assert anchors.max() < 1.0
    detector: BlazeFaceDetector = getattr(analyzer, model)
    # One anchor per row of the model's box head: a wrong grid would decode garbage.
    rows = [int(np.prod(o.shape[:-1])) for o in detector.model.session.get_outputs()]
    assert rows == [count, count]


def test_anchor_options_the_generator_cannot_follow_are_refused() -> None:
    options = dict(load_manifest().get("face_detection_short_range").raw["anchors"])
    assert AnchorSpec.from_options(options) == AnchorSpec(128, (8, 16, 16, 16), True)
    for change in ({"aspect_ratios": [1.0, 2.0]}, {"num_boxes": 895}, {"num_layers": 3}):
        with pytest.raises(ManifestError):
            AnchorSpec.from_options({**options, **change})


# --- real faces -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", single_person_params())
def test_finds_the_face_in_every_single_person_photo(analyzer: FaceAnalyzer, path: Path) -> None:
    frame = load(path)
    detections = analyzer.detect(frame, DetectionSettings())
    assert len(detections) == 1, [(d.score, d.width) for d in detections]
    det = detections[0]
    assert det.score >= 0.5
    right_eye, left_eye, nose, mouth = det.keypoints[:4]
    # The keypoints of an upright face sit inside its box in their anatomical order.
    for point in (right_eye, left_eye, nose, mouth):
        assert inside(det.box, point), (det.box, point)
    assert right_eye[0] < left_eye[0]  # the subject's right eye is on the image's left
    assert max(right_eye[1], left_eye[1]) < mouth[1]
    assert det.width > 0.1 * min(frame.shape[:2])


@pytest.mark.testdata
def test_finds_at_least_five_of_the_six_faces_in_the_group_photo(
    analyzer: FaceAnalyzer, testdata_dir: Path
) -> None:
    frame = load(testdata_dir / GROUP_PHOTO)
    detections = analyzer.detect(frame, DetectionSettings(max_faces=16))
    assert 5 <= len(detections) <= 6, [(d.score, d.width) for d in detections]
    # Six people: every detection is a different face, not a second box on the same one.
    for i, a in enumerate(detections):
        for b in detections[i + 1 :]:
            assert box_iou(a.box, b.box) < 0.1


def small_face_frame(analyzer: FaceAnalyzer, fraction: float) -> tuple[np.ndarray, np.ndarray]:
    """Grace Hopper scaled so her face is `fraction` of a 1280×720 frame's width, pasted
    on a plain canvas; returns the frame and where the face's box must be."""
    portrait = load(BUNDLED[0])
    face_box = analyzer.detect(portrait, DetectionSettings())[0].box.astype(np.float64)
    factor = fraction * 1280 / (face_box[2] - face_box[0])
    small = scaled(portrait, factor)
    canvas = np.full((720, 1280, 3), 200, np.uint8)
    x0, y0 = 700, 150
    frame = paste(canvas, small, x0, y0)
    return frame, face_box * factor + (x0, y0, x0, y0)


def test_full_range_finds_a_face_a_tenth_of_the_frame_wide(analyzer: FaceAnalyzer) -> None:
    frame, expected = small_face_frame(analyzer, 0.11)
    for model in ("auto", "full"):
        detections = analyzer.detect(frame, DetectionSettings(model=model))
        assert len(detections) == 1, model
        assert box_iou(detections[0].box, expected) > 0.5, (detections[0].box, expected)
    # The short-range model is for faces near the camera; whether it copes here is
    # reported, not required.
    short = analyzer.detect(frame, DetectionSettings(model="short"))
    print(
        "short range on a face 11% of the frame wide (score, IoU with the face):",
        [(round(d.score, 2), round(box_iou(d.box, expected), 2)) for d in short],
    )


def test_the_model_setting_chooses_the_detector(analyzer: FaceAnalyzer) -> None:
    frame = load(BUNDLED[0])
    short = analyzer.detect(frame, DetectionSettings(model="short"))
    full = analyzer.detect(frame, DetectionSettings(model="full"))
    assert analyzer.detect(frame, DetectionSettings(model="auto"))[0].score == full[0].score
    # Both find the face, as two different models (their scores differ).
    assert box_iou(short[0].box, full[0].box) > 0.7
    assert short[0].score != full[0].score


def test_boxes_map_back_through_the_letterbox(analyzer: FaceAnalyzer) -> None:
    """The same face in a wide and a tall canvas, at different places: the box moves with
    it (padding and scale of the square model input are undone)."""
    portrait = load(BUNDLED[0])
    reference = analyzer.detect(portrait, DetectionSettings())[0]
    h, w = portrait.shape[:2]
    for size, (x0, y0) in (((h + 40, w * 3), (900, 20)), ((h * 2, w + 10), (5, 550))):
        canvas = paste(np.full((*size, 3), 90, np.uint8), portrait, x0, y0)
        det = analyzer.detect(canvas, DetectionSettings())[0]
        shifted = reference.box + np.array([x0, y0, x0, y0], np.float32)
        tolerance = 0.08 * reference.width
        assert np.abs(det.box - shifted).max() < tolerance, (det.box, shifted)
        moved = reference.keypoints[:4] + np.array([x0, y0], np.float32)
        assert np.abs(det.keypoints[:4] - moved).max() < tolerance


# --- settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["full", "short"])
def test_score_threshold_is_respected(analyzer: FaceAnalyzer, model: DetectorModel) -> None:
    frame = load(BUNDLED[0])
    best = analyzer.detect(frame, DetectionSettings(model=model, score_threshold=0.05))
    assert best
    top = max(d.score for d in best)
    assert all(d.score >= 0.05 for d in best)
    below = analyzer.detect(frame, DetectionSettings(model=model, score_threshold=top - 0.01))
    above = analyzer.detect(
        frame, DetectionSettings(model=model, score_threshold=min(top + 0.01, 0.99))
    )
    assert len(below) == 1
    assert below[0].score >= top - 0.01
    assert above == []


def test_auto_asks_the_short_range_model_when_the_full_range_one_finds_nothing(
    analyzer: FaceAnalyzer,
) -> None:
    """A close-up can score below threshold on the full-range model (a clear frontal
    face in WIDE did: 0.47 against 0.91): "auto" then takes the short-range answer."""
    frame = load(BUNDLED[0])
    full = max(d.score for d in analyzer.detect(frame, DetectionSettings(model="full")))
    short = max(d.score for d in analyzer.detect(frame, DetectionSettings(model="short")))
    assert short > full + 0.02, (short, full)
    between = DetectionSettings(model="auto", score_threshold=(full + short) / 2)
    assert analyzer.detect(frame, dataclasses.replace(between, model="full")) == []
    found = analyzer.detect(frame, between)
    assert len(found) == 1 and found[0].score >= between.score_threshold


def test_min_face_px_is_respected(analyzer: FaceAnalyzer) -> None:
    frame = load(BUNDLED[0])
    width = analyzer.detect(frame, DetectionSettings(min_face_px=1))[0].width
    assert len(analyzer.detect(frame, DetectionSettings(min_face_px=int(width) - 1))) == 1
    assert analyzer.detect(frame, DetectionSettings(min_face_px=int(width) + 2)) == []


# --- pure helpers -----------------------------------------------------------------------------


def make_detection(cx: float, cy: float, size: float, score: float = 0.9) -> Detection:
    box = np.array([cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2], np.float32)
    keypoints = np.tile(np.array([cx, cy], np.float32), (6, 1))
    return Detection(box, keypoints, score)


def test_main_face_prefers_large_and_central_faces() -> None:
    frame_size = (1280, 720)
    small_centre = make_detection(640, 360, 60)
    large_corner = make_detection(200, 200, 300)
    assert main_face_index([small_centre, large_corner], frame_size) == 1
    large_centre = make_detection(640, 360, 300)
    same_size_corner = make_detection(150, 150, 300)
    assert main_face_index([same_size_corner, large_centre], frame_size) == 1
    assert main_face_index([large_centre, same_size_corner], frame_size) == 0
    # Equal faces in equal places: the more confident one.
    unsure, sure = make_detection(640, 360, 200, 0.6), make_detection(640, 360, 200, 0.95)
    assert main_face_index([unsure, sure], frame_size) == 1


@pytest.mark.testdata
def test_main_face_of_the_group_photo_is_a_large_central_one(
    analyzer: FaceAnalyzer, testdata_dir: Path
) -> None:
    frame = load(testdata_dir / GROUP_PHOTO)
    detections = analyzer.detect(frame, DetectionSettings(max_faces=16))
    main = detections[main_face_index(detections, (frame.shape[1], frame.shape[0]))]
    widths = sorted(d.width for d in detections)
    assert main.width >= widths[len(widths) // 2]  # at least median size
    faces = analyzer.analyze_image(frame, DetectionSettings(max_faces=16))
    assert faces[0].detection is not None
    np.testing.assert_array_equal(faces[0].detection.box, main.box)


def test_weighted_nms_merges_overlapping_boxes_by_score() -> None:
    boxes = np.array([[100, 100, 200, 200], [110, 104, 210, 204], [500, 500, 560, 560]], np.float32)
    keypoints = np.stack([np.full((6, 2), v, np.float32) for v in (150.0, 160.0, 530.0)])
    scores = np.array([0.6, 0.9, 0.7], np.float32)
    results = weighted_nms(boxes, keypoints, scores)
    assert len(results) == 2
    (merged_box, merged_kps, merged_score), (far_box, _, far_score) = results
    w = np.array([0.9, 0.6]) / 1.5  # the more confident box weighs more
    np.testing.assert_allclose(merged_box, w[0] * boxes[1] + w[1] * boxes[0], atol=1e-4)
    np.testing.assert_allclose(merged_kps, w[0] * 160.0 + w[1] * 150.0, atol=1e-4)
    assert merged_score == pytest.approx(0.9)  # the group keeps its best score
    np.testing.assert_array_equal(far_box, boxes[2])
    assert far_score == pytest.approx(0.7)


def test_weighted_nms_keeps_boxes_that_barely_touch() -> None:
    boxes = np.array([[0, 0, 100, 100], [80, 0, 180, 100]], np.float32)  # IoU 0.11
    keypoints = np.zeros((2, 6, 2), np.float32)
    results = weighted_nms(boxes, keypoints, np.array([0.8, 0.7], np.float32))
    assert len(results) == 2
