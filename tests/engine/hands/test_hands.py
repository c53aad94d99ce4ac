"""Hand occlusion: real palm + hand landmark inference, the hand mask, and the stage that
keeps a hand in front of the face visible through the live pipeline.

The test data has no photo of a hand over a face, so one is composited: the hand of
anon_inspireface_zy_1 (resting at her chin) is cut out along its own landmarks and
pasted over the face of alex_lacamoire_2.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.core.packet import FramePacket, HandsSeen
from engine.core.settings import EngineSettings, HandSettings
from engine.core.types import F32
from engine.face.analyzer import FaceAnalyzer
from engine.face.anchors import anchor_spec
from engine.hands.mask import hand_mask, hand_size_px
from engine.hands.palm import palm_roi, upright_angle
from engine.hands.tracker import HandTrackingOptions
from engine.runtime.factory import build_stages, with_sources
from engine.stages.base import Stage
from engine.stages.hands import HandStage
from engine.swap.library import SourceLibrary

pytestmark = pytest.mark.testdata

HAND_PHOTO = "faces/anon_inspireface_zy_1.png"
FACE_PHOTO = "faces/alex_lacamoire_2.jpg"
# MediaPipe's own Hands solution (mediapipe 0.10.21, static_image_mode, model_complexity=0)
# on HAND_PHOTO, frame pixels: wrist, index knuckle, middle knuckle, middle fingertip.
MEDIAPIPE_REFERENCE = {0: (241.6, 1054.8), 5: (332.1, 891.3), 9: (293.8, 895.7), 12: (168.8, 819.9)}


@pytest.fixture(scope="module")
def stage() -> HandStage:
    return HandStage.bundled("cpu")


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled("cpu")


def _read(testdata_dir: Path, name: str) -> NDArray[np.uint8]:
    image = cv2.imread(str(testdata_dir / name), cv2.IMREAD_COLOR)
    assert image is not None, name
    return image


def _hands(stage: HandStage, frame: NDArray[np.uint8]) -> list[F32]:
    stage.tracker.reset()
    return stage.tracker.step(frame, HandTrackingOptions(every_n=1))


@pytest.fixture(scope="module")
def hand_over_face(
    testdata_dir: Path, stage: HandStage, analyzer: FaceAnalyzer
) -> tuple[NDArray[np.uint8], NDArray[np.bool_]]:
    """(composite frame, where the pasted hand is opaque)."""
    hand_photo = _read(testdata_dir, HAND_PHOTO)
    hands = _hands(stage, hand_photo)
    assert len(hands) == 1
    hand = hands[0]
    # Cut just inside the hand's outline (no margin, eroded), so little background comes.
    cut = cv2.erode(hand_mask([hand], hand_photo.shape[:2], grow=0.0), np.ones((7, 7), np.uint8))
    frame = _read(testdata_dir, FACE_PHOTO)
    face = analyzer.analyze_image(frame)[0]
    assert face.landmarks is not None
    xy = face.landmarks[:, :2]
    scale = 0.5 * float(np.ptp(xy[:, 0])) / hand_size_px(hand)
    palm_centre = hand[[0, 5, 9, 13, 17], :2].mean(axis=0)
    target = (xy[13] + xy[152]) / 2  # between the lips and the chin
    m = np.array(
        [
            [scale, 0, target[0] - scale * palm_centre[0]],
            [0, scale, target[1] - scale * palm_centre[1]],
        ]
    )
    size = (frame.shape[1], frame.shape[0])
    moved = cv2.warpAffine(hand_photo, m, size, flags=cv2.INTER_AREA)
    alpha = cv2.GaussianBlur(cv2.warpAffine(cut, m, size), (0, 0), 1.0)[..., None]
    composite = np.clip(frame * (1.0 - alpha) + moved * alpha + 0.5, 0, 255).astype(np.uint8)
    opaque = cv2.erode((alpha[..., 0] > 0.999).astype(np.uint8), np.ones((3, 3), np.uint8))
    return composite, opaque.astype(bool)


# --- models ------------------------------------------------------------------------------


def test_anchor_grid_matches_the_model(stage: HandStage) -> None:
    detector = stage.tracker.detector
    assert len(anchor_spec("palm_detection").generate()) == 2016
    boxes = detector.model.session.get_outputs()[0].shape
    assert 2016 in boxes


def test_landmarks_match_mediapipe_on_a_real_hand(testdata_dir: Path, stage: HandStage) -> None:
    hands = _hands(stage, _read(testdata_dir, HAND_PHOTO))
    assert len(hands) == 1
    hand = hands[0]
    size = hand_size_px(hand)
    for index, (x, y) in MEDIAPIPE_REFERENCE.items():
        error = float(np.hypot(hand[index, 0] - x, hand[index, 1] - y))
        # Within a tenth of the palm's length (the landmark model's own jitter is ~2-3%).
        assert error < 0.1 * size, (index, error, size)


def test_a_face_photo_without_hands_has_none(testdata_dir: Path, stage: HandStage) -> None:
    assert _hands(stage, _read(testdata_dir, FACE_PHOTO)) == []


def test_palm_roi_points_the_fingers_up() -> None:
    # Wrist below the knuckles: no rotation; fingers to the right: a quarter turn.
    assert upright_angle(np.array([0.0, 10.0]), np.array([0.0, 0.0])) % (2 * np.pi) == 0.0
    assert np.isclose(upright_angle(np.array([0.0, 0.0]), np.array([10.0, 0.0])), np.pi / 2)
    from engine.hands.palm import Palm

    keypoints = np.zeros((7, 2), np.float32)
    keypoints[0], keypoints[2] = (50, 60), (50, 40)
    roi = palm_roi(Palm(np.array([40, 40, 60, 60], np.float32), keypoints, 0.9))
    assert roi.size == pytest.approx(20 * 2.6)
    assert (roi.cx, roi.cy) == pytest.approx((50.0, 40.0))  # half the box toward the fingers


# --- mask --------------------------------------------------------------------------------


def _spread_hand() -> F32:
    """A synthetic upright hand with spread fingers (wrist at the bottom)."""
    pts = np.zeros((21, 3), np.float32)
    pts[0] = (130, 220, 0)
    knuckles = {1: (100, 200), 5: (105, 150), 9: (130, 145), 13: (155, 150), 17: (175, 160)}
    for base, (x, y) in knuckles.items():
        direction = np.array([x - 130, y - 220], np.float32)
        direction /= np.linalg.norm(direction)
        for k in range(4):
            pts[base + k, :2] = np.array([x, y]) + direction * 30 * k
    return pts


def test_hand_mask_follows_fingers_not_their_hull() -> None:
    hand = _spread_hand()
    mask = hand_mask([hand], (280, 300), grow=0.0)
    assert mask.dtype == np.float32 and set(np.unique(mask)) <= {0.0, 1.0}
    for i in (0, 4, 8, 12, 16, 20, 9):
        x, y = hand[i, :2].astype(int)
        assert mask[y, x] == 1.0, i
    # Between the index and middle fingertips: inside the hull, not a finger.
    gap = ((hand[8, :2] + hand[12, :2]) / 2).astype(int)
    assert mask[gap[1], gap[0]] == 0.0
    hull = np.zeros((280, 300), np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(hand[:, :2].astype(np.int32)), 1)
    assert (hull.astype(bool) & (mask == 0.0)).sum() > 0.1 * hull.sum()


def test_hand_mask_in_region_coordinates() -> None:
    hand = _spread_hand()
    full = hand_mask([hand], (280, 300))
    region = hand_mask([hand], (100, 80), origin=(60, 110))
    # The same pixels (OpenCV's clipping of thick strokes may differ by a stray pixel).
    assert np.mean(region != full[110:210, 60:140]) < 0.002
    assert region.sum() > 1000
    assert not hand_mask([hand], (50, 50), origin=(1000, 1000)).any()
    assert hand_mask([hand], (280, 300), grow=0.2).sum() > full.sum()


def test_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="every_n"):
        HandSettings(every_n=0)
    with pytest.raises(ValueError, match="grow"):
        HandSettings(grow=0.9)


# --- tracking ----------------------------------------------------------------------------


def test_palm_detector_runs_every_n_frames_while_the_hand_is_tracked(
    hand_over_face: tuple[NDArray[np.uint8], NDArray[np.bool_]], stage: HandStage
) -> None:
    frame, _ = hand_over_face
    tracker = stage.tracker
    tracker.reset()
    before_detect, before_mark = tracker.detections_run, tracker.landmarks_run
    options = HandTrackingOptions(every_n=3, max_hands=2)
    found = [len(tracker.step(frame, options)) for _ in range(6)]
    assert found == [1] * 6
    assert tracker.detections_run - before_detect == 2  # frames 0 and 3
    assert tracker.landmarks_run - before_mark == 6
    # All hands found (max_hands=1): only the landmark model runs.
    tracker.reset()
    before_detect = tracker.detections_run
    for _ in range(6):
        tracker.step(frame, dataclasses.replace(options, max_hands=1))
    assert tracker.detections_run - before_detect == 1


# --- the stage in the live pipeline ---------------------------------------------------------


@pytest.fixture(scope="module")
def pipeline(analyzer: FaceAnalyzer) -> tuple[list[Stage], EngineSettings]:
    library = SourceLibrary(analyzer)
    settings = with_sources(EngineSettings(), library)
    return build_stages(settings, library=library), settings


def _run(
    stages: list[Stage], settings: EngineSettings, frame: NDArray[np.uint8], until: str | None
) -> FramePacket:
    """One still frame through the stages (all, or those before `until`), fresh tracking."""
    for s in stages:
        tracker = getattr(s, "tracker", None)
        if tracker is not None:
            tracker.reset()
    packet = FramePacket(0, 0, frame)
    for s in stages:
        if s.name == until:
            break
        packet = s.process(packet, settings)
    return packet


def test_factory_places_hands_between_enhancer_and_compositor(
    pipeline: tuple[list[Stage], EngineSettings],
) -> None:
    names = [s.name for s in pipeline[0]]
    assert names.index("enhancer") < names.index("hands") < names.index("compositor")


def test_hand_over_the_face_stays_visible(
    pipeline: tuple[list[Stage], EngineSettings],
    hand_over_face: tuple[NDArray[np.uint8], NDArray[np.bool_]],
) -> None:
    stages, settings = pipeline
    frame, opaque = hand_over_face
    on = dataclasses.replace(settings, hands=HandSettings(enabled=True))
    for s in stages:
        s.prepare(on)  # the hand models load in the background otherwise
    with_hands = _run(stages, on, frame, until=None)
    assert with_hands.hands is not None and with_hands.hands.over_faces == 1
    patch = with_hands.faces[0].patch
    assert patch is not None
    # The pasted hand pixels the face patch covers: the swap would change them… (The
    # patch may be on a grid coarser than the frame: its mask is placed at frame scale.)
    w, h = patch.box_size
    in_patch = np.zeros_like(opaque)
    in_patch[patch.y0 : patch.y0 + h, patch.x0 : patch.x0 + w] = (
        patch.on_frame_grid(patch.mask) > 0.5
    )
    hand_on_face = opaque & in_patch
    assert hand_on_face.sum() > 2000, "the composite should put the hand over the face"
    without = _run(stages, settings, frame, until=None)
    changed = np.any(without.result != frame, axis=2)
    assert changed[hand_on_face].mean() > 0.5, "without the stage the swap paints the hand"
    # …and with the stage they come through exactly as captured.
    kept = np.all(with_hands.result == frame, axis=2)
    assert kept[hand_on_face].mean() > 0.97, kept[hand_on_face].mean()
    # The face around the hand is still swapped.
    face_only = in_patch & ~cv2.dilate(opaque.astype(np.uint8), np.ones((41, 41))).astype(bool)
    assert np.any(with_hands.result != frame, axis=2)[face_only].mean() > 0.5


def test_no_hand_leaves_the_keep_mask_unchanged(
    testdata_dir: Path, pipeline: tuple[list[Stage], EngineSettings], stage: HandStage
) -> None:
    stages, settings = pipeline
    frame = _read(testdata_dir, FACE_PHOTO)
    packet = _run(stages, settings, frame, until="hands")
    patch = packet.faces[0].patch
    assert patch is not None and patch.keep_mask is not None
    before = patch.keep_mask.copy()
    on = dataclasses.replace(settings, hands=HandSettings(enabled=True))
    stage.tracker.reset()
    out = stage.process(packet, on)
    assert out.hands == HandsSeen(found=0, over_faces=0)
    assert out.faces[0].patch is patch
    np.testing.assert_array_equal(patch.keep_mask, before)


def test_disabled_stage_runs_no_model(
    hand_over_face: tuple[NDArray[np.uint8], NDArray[np.bool_]],
    pipeline: tuple[list[Stage], EngineSettings],
    stage: HandStage,
) -> None:
    stages, settings = pipeline
    frame, _ = hand_over_face
    packet = _run(stages, settings, frame, until="hands")
    keep = [f.patch.keep_mask.copy() for f in packet.faces if f.patch is not None]
    runs = (stage.tracker.detections_run, stage.tracker.landmarks_run)
    stage.process(packet, settings)  # hands.enabled is off by default
    assert (stage.tracker.detections_run, stage.tracker.landmarks_run) == runs
    after = [f.patch.keep_mask for f in packet.faces if f.patch is not None]
    assert all(np.array_equal(a, b) for a, b in zip(keep, after, strict=True))
    assert packet.hands is None
