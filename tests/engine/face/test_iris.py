"""MediaPipe's iris model (engine/face/iris.py): its constants against what the manifest
read out of MediaPipe's wheel, the crop maths, and real inference on real photos."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.core.types import Frame, Landmarks
from engine.face import iris
from engine.face.analyzer import FaceAnalyzer
from engine.face.iris import EyeRefinement, EyeRefiner, eye_crop_affines, eye_openness
from engine.face.mesh import topology
from engine.models.manifest import MANIFEST_PATH
from tests.engine.face_data import TESTDATA_DIR, load

FACES = TESTDATA_DIR / "faces"
# Open-eyed, frontal-ish single faces, eyes 46-113 px wide.
PHOTOS = ("obama_1.jpg", "biden_1.jpg", "robert_downey_jr_1.jpg", "lin_manuel_miranda_1.png")
# Iris radius over the eye's corner-to-corner width: measured 0.164-0.224 on eight photos
# (a human iris is ~12 mm across, an eye ~30 mm wide: about 0.2).
IRIS_RADIUS_OF_WIDTH = (0.15, 0.3)
MIN_OPEN = 0.15
# Refined openness of a painted-shut eye over the same eye open, per eye: measured
# 0.32-0.68 on eight photos (0.39-0.64 on PHOTOS); the mesh-only lids stay near their
# open value or rise, the model's lids fall (see _paint_eyes_shut).
MAX_SHUT_OF_OPEN = 0.75


@pytest.fixture(scope="module")
def entry() -> dict[str, Any]:
    models = json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))["models"]
    return next(e for e in models if e["name"] == iris.MODEL_NAME)


@pytest.fixture(scope="module")
def refiner() -> EyeRefiner:
    return EyeRefiner.bundled()


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    # Unrefined: the mesh's own lids are the input the refiner gets in the app.
    return FaceAnalyzer.bundled(eyes=False)


@dataclass(frozen=True)
class Photo:
    frame: Frame
    mesh: Landmarks  # 468×3, unrefined
    eyes: EyeRefinement


@pytest.fixture(scope="module")
def photos(analyzer: FaceAnalyzer, refiner: EyeRefiner) -> dict[str, Photo]:
    out = {}
    for name in PHOTOS:
        frame = load(FACES / name)
        faces = analyzer.analyze_image(frame)
        assert len(faces) == 1 and faces[0].landmarks is not None, name
        eyes = refiner.refine(frame, faces[0].landmarks)
        assert eyes is not None, name
        out[name] = Photo(frame, faces[0].landmarks, eyes)
    return out


def _corner_landmarks(right: tuple[Any, Any], left: tuple[Any, Any]) -> NDArray[np.float64]:
    """468×3 landmarks, all at (100, 100), but for the two eyes' corners."""
    points = np.full((468, 3), 100.0)
    (ra, rb), (la, lb) = right, left
    points[[iris.RIGHT_EYE_KEYS[0], iris.RIGHT_EYE_KEYS[1]], :2] = ra, rb
    points[[iris.LEFT_EYE_KEYS[0], iris.LEFT_EYE_KEYS[1]], :2] = la, lb
    return points


def _map(affine: NDArray[np.float64], xy: tuple[float, float]) -> NDArray[np.float64]:
    return affine[:, :2] @ np.asarray(xy, np.float64) + affine[:, 2]


def test_mesh_ids_are_mediapipes_refinement(entry: dict[str, Any]) -> None:
    eyes = {e["mediapipe_name"]: e for e in entry["eye_crop"]["eyes"]}
    # MediaPipe's "left" eye is mesh 33/133 (cropped as is), its "right" 362/263 (flipped).
    ours = {"left": (iris.RIGHT_EYE_MESH_IDS, iris.RIGHT_EYE_KEYS, False)}
    ours["right"] = (iris.LEFT_EYE_MESH_IDS, iris.LEFT_EYE_KEYS, True)
    for name, (ids, keys, mirrored) in ours.items():
        assert ids.shape == (iris.NUM_EYE_POINTS,) and len(set(ids.tolist())) == 71
        assert ids.tolist() == eyes[name]["mesh_ids"]
        assert eyes[name]["flipped"] is mirrored
        assert sorted(keys[:2]) == sorted(eyes[name]["corners"])
        # The lids first: the lower lid corner to corner, then the upper one.
        lower = ids[:9].tolist()
        assert {lower[0], lower[-1]} == set(eyes[name]["corners"])
        assert keys[3] in lower and keys[2] in ids[9 : iris.NUM_LID_POINTS].tolist()
    assert not set(iris.RIGHT_EYE_MESH_IDS.tolist()) & set(iris.LEFT_EYE_MESH_IDS.tolist())
    topo = topology()  # the mesh's own eye contours are exactly the 16 lid points
    lids = iris.NUM_LID_POINTS
    assert entry["refinement"]["lid_points"] == lids
    assert sorted(topo.region("right_eye")) == sorted(iris.RIGHT_EYE_MESH_IDS[:lids].tolist())
    assert sorted(topo.region("left_eye")) == sorted(iris.LEFT_EYE_MESH_IDS[:lids].tolist())


def test_crop_constants_match_the_manifest(entry: dict[str, Any], refiner: EyeRefiner) -> None:
    crop = entry["eye_crop"]
    assert crop["scale"] == iris.CROP_SCALE and crop["square_long"] is True
    assert entry["image_to_tensor"]["output_tensor_width"] == iris.CROP_PX
    assert entry["image_to_tensor"]["border_mode"] == "BORDER_REPLICATE"
    assert entry["input"]["range"] == [0.0, 1.0] and entry["input"]["shape"][1:] == [64, 64, 3]
    assert entry["postprocessing"]["num_eye_landmarks"] == iris.NUM_EYE_POINTS
    assert entry["postprocessing"]["num_iris_landmarks"] == iris.NUM_IRIS_POINTS
    assert refiner.model.session.get_inputs()[0].shape[0] == "batch"


def test_crop_is_centred_scaled_and_mirrors_the_left_eye() -> None:
    # Right eye level, 40 px; left eye turned 30° with a 50 px box side (dx) and 28.9 dy.
    angle = np.radians(30.0)
    left_d = 50.0 / np.cos(angle) * np.array([np.cos(angle), np.sin(angle)])
    left_a = np.array([300.0, 180.0])
    points = _corner_landmarks(((100, 200), (140, 200)), (left_a, left_a + left_d))
    affines = eye_crop_affines(points)
    assert affines is not None
    centre = (iris.CROP_PX / 2, iris.CROP_PX / 2)
    for affine, (a, b), side in (
        (affines[0], (points[33, :2], points[133, :2]), 40.0),
        (affines[1], (points[362, :2], points[263, :2]), 50.0),
    ):
        np.testing.assert_allclose(_map(affine, centre), (a + b) / 2, atol=1e-9)
        # The crop's side is CROP_SCALE × the longer side of the corners' box.
        scale = np.sqrt(abs(np.linalg.det(affine[:, :2])))
        assert scale * iris.CROP_PX == pytest.approx(iris.CROP_SCALE * side)
    # Model x runs along the eye line for the right eye, against it for the mirrored left.
    right_x = _map(affines[0], (iris.CROP_PX, 32)) - _map(affines[0], (0, 32))
    left_x = _map(affines[1], (iris.CROP_PX, 32)) - _map(affines[1], (0, 32))
    np.testing.assert_allclose(right_x / np.linalg.norm(right_x), (1, 0), atol=1e-9)
    np.testing.assert_allclose(left_x / np.linalg.norm(left_x), -left_d / 50 * np.cos(angle))
    # Model y points down the face (image y, turned by the eye line) for both eyes.
    left_y = _map(affines[1], (32, iris.CROP_PX)) - _map(affines[1], (32, 0))
    np.testing.assert_allclose(left_y / np.linalg.norm(left_y), (-np.sin(angle), np.cos(angle)))
    assert np.linalg.det(affines[0][:, :2]) > 0 > np.linalg.det(affines[1][:, :2])


def test_an_eye_under_min_eye_px_is_not_refined(refiner: EyeRefiner) -> None:
    small = iris.MIN_EYE_PX - 0.5
    points = _corner_landmarks(((100, 200), (140, 200)), ((300, 200), (300 + small, 201)))
    assert eye_crop_affines(points) is None
    frame = np.full((400, 400, 3), 128, np.uint8)
    assert refiner.refine(frame, points) is None
    wide = _corner_landmarks(((100, 200), (140, 200)), ((300, 200), (300 + iris.MIN_EYE_PX, 200)))
    assert eye_crop_affines(wide) is not None


def test_bad_input_is_refused_with_the_reason(refiner: EyeRefiner) -> None:
    frame = np.zeros((200, 200, 3), np.uint8)
    points = _corner_landmarks(((50, 100), (80, 100)), ((120, 100), (150, 100)))
    for shape in ((468, 1), (100, 2), (468,)):
        with pytest.raises(ValueError, match="468×2 or 468×3 landmarks"):
            refiner.refine(frame, np.zeros(shape))
    bad_frames: list[Any] = [
        frame.astype(np.float32),
        frame[:, :, 0],
        np.zeros((200, 200, 4), np.uint8),
    ]
    for bad in bad_frames:
        with pytest.raises(ValueError, match="BGR uint8 frame"):
            refiner.refine(bad, points)


def _lid_polygon(lids: NDArray[np.floating]) -> NDArray[np.float32]:
    """The opening as a simple polygon: the lower lid corner to corner, the upper back."""
    p = np.asarray(lids, np.float32)
    return np.vstack([p[:9], p[9:][::-1]]).reshape(-1, 1, 2)


def _eye_width(points: NDArray[np.floating], keys: tuple[int, ...]) -> float:
    return float(np.linalg.norm(points[keys[0], :2] - points[keys[1], :2]))


@pytest.mark.testdata
def test_iris_lies_inside_the_lids_at_a_plausible_size(photos: dict[str, Photo]) -> None:
    for name, photo in photos.items():
        for eye, keys in (
            (photo.eyes.right, iris.RIGHT_EYE_KEYS),
            (photo.eyes.left, iris.LEFT_EYE_KEYS),
        ):
            assert eye.contour.shape == (71, 2) and eye.iris.shape == (5, 2), name
            centre = (float(eye.iris_center[0]), float(eye.iris_center[1]))
            assert cv2.pointPolygonTest(_lid_polygon(eye.lids), centre, False) > 0, name
            ratio = eye.iris_radius_px / _eye_width(photo.mesh, keys)
            assert IRIS_RADIUS_OF_WIDTH[0] < ratio < IRIS_RADIUS_OF_WIDTH[1], (name, ratio)


@pytest.mark.testdata
def test_apply_moves_only_the_32_lid_vertices(photos: dict[str, Photo]) -> None:
    lid_ids = np.concatenate(
        [
            iris.RIGHT_EYE_MESH_IDS[: iris.NUM_LID_POINTS],
            iris.LEFT_EYE_MESH_IDS[: iris.NUM_LID_POINTS],
        ]
    )
    for name, photo in photos.items():
        refined = photo.eyes.apply(photo.mesh)
        assert refined.shape == photo.mesh.shape and refined.dtype == np.float32
        changed = np.flatnonzero(np.any(refined != photo.mesh, axis=1))
        assert set(changed.tolist()) <= set(lid_ids.tolist()), name
        assert len(changed) >= 28, (name, len(changed))  # the model did move them
        np.testing.assert_array_equal(refined[:, 2], photo.mesh[:, 2])  # z stays the mesh's
        np.testing.assert_array_equal(refined[lid_ids[:16], :2], photo.eyes.right.lids)
        np.testing.assert_array_equal(refined[lid_ids[16:], :2], photo.eyes.left.lids)
        assert photo.mesh is not refined and not np.shares_memory(photo.mesh, refined)


@pytest.mark.testdata
def test_open_eyes_read_open(photos: dict[str, Photo]) -> None:
    for name, photo in photos.items():
        assert min(eye_openness(photo.eyes.apply(photo.mesh))) > MIN_OPEN, name


def _paint_eyes_shut(frame: Frame, mesh: Landmarks) -> Frame:
    """The photo with each eye's opening (the unrefined mesh's lid contour, grown by a
    quarter of the eye's width to take the lashes too) inpainted from the lid skin round
    it, and a closed eye's lash line drawn corner to corner, half-way between the lids,
    in the upper lashes' dark colour. Skin alone leaves the model a featureless blob, on
    which its lids fell to 0.24-0.93 of open; the lash line is what a shut eye shows."""
    mask = np.zeros(frame.shape[:2], np.uint8)
    for ids in (iris.RIGHT_EYE_MESH_IDS, iris.LEFT_EYE_MESH_IDS):
        hull = cv2.convexHull(mesh[ids[: iris.NUM_LID_POINTS], :2].astype(np.float32))
        cv2.fillPoly(mask, [np.round(hull).astype(np.int32)], 255)
    width = _eye_width(mesh, iris.RIGHT_EYE_KEYS)
    grow = max(3, round(width / 4)) | 1
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow)))
    out = cv2.inpaint(frame, mask, max(3, int(width / 10)), cv2.INPAINT_TELEA)
    for ids in (iris.RIGHT_EYE_MESH_IDS, iris.LEFT_EYE_MESH_IDS):
        lids = mesh[ids[: iris.NUM_LID_POINTS], :2].astype(np.float64)
        line = np.vstack([lids[0], (lids[1:8] + lids[9:16]) / 2, lids[8]])
        upper = np.round(lids[9:16]).astype(int)
        lash = np.percentile(frame[upper[:, 1], upper[:, 0]], 20, axis=0)
        cv2.polylines(
            out, [np.round(line * 16).astype(np.int32)], False, lash.tolist(),
            max(1, int(width * 0.06)), cv2.LINE_AA, shift=4,
        )  # fmt: skip
    return out


@pytest.mark.testdata
def test_painted_shut_eyes_read_much_less_open(
    photos: dict[str, Photo], refiner: EyeRefiner
) -> None:
    for name, photo in photos.items():
        shut = _paint_eyes_shut(photo.frame, photo.mesh)
        eyes = refiner.refine(shut, photo.mesh)  # the open mesh: only the pixels changed
        assert eyes is not None, name
        open_ = np.array(eye_openness(photo.eyes.apply(photo.mesh)))
        closed = np.array(eye_openness(eyes.apply(photo.mesh)))
        assert np.all(closed < MAX_SHUT_OF_OPEN * open_), (name, open_, closed)
