"""Tracking: faces followed from the previous frame's landmarks with few detector calls,
re-found after they leave, and smoothed by the One Euro filter without lagging fast moves."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.profile import StepTimer
from engine.core.settings import DetectionSettings, EngineSettings, TrackingSettings
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer
from engine.face.fit import FaceFitter
from engine.face.one_euro import OneEuroFilter
from engine.face.roi import roi_from_landmarks
from engine.stages.base import Stage
from engine.stages.face_models import FaceModels
from engine.stages.faces import FaceStage
from engine.stages.fit import FitStage
from tests.engine.face_data import BUNDLED, OBAMA_VIDEO, inter_ocular, load, paste, searched

FPS = 30.0
ReadFrames = Callable[[Path], list[Frame]]  # the `read_frames` fixture (tests/conftest.py)


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled()


def face_stages(analyzer: FaceAnalyzer) -> tuple[FaceStage, list[Stage]]:
    faces = FaceStage(FaceModels.ready(analyzer))
    return faces, [faces, FitStage(FaceFitter())]


def run_stages(
    stages: list[Stage],
    frames: Iterator[Frame] | list[Frame],
    settings: EngineSettings,
    after_each: Callable[[FramePacket], None] | None = None,
) -> list[FramePacket]:
    """Every frame in order, stamped as a camera at FPS would stamp it, and profiled
    (which frames detected: `searched`)."""
    packets = []
    for i, frame in enumerate(frames):
        packet = FramePacket(i, 5_000_000_000 + round(i * 1e9 / FPS), frame, steps=StepTimer())
        for stage in stages:
            packet = stage.process(packet, settings)
        packets.append(packet)
        if after_each is not None:
            after_each(packet)
    return packets


def with_tracking(*, smoothing: bool) -> EngineSettings:
    settings = EngineSettings()
    return dataclasses.replace(settings, tracking=TrackingSettings(smoothing=smoothing))


# --- One Euro filter --------------------------------------------------------------------------


def test_one_euro_passes_a_constant_signal_unchanged() -> None:
    f = OneEuroFilter(1.5, 0.05)
    value = np.array([[10.0, -3.5], [400.25, 7.0]])
    for i in range(50):
        np.testing.assert_array_equal(f(value, i / FPS, scale=100.0), value)


def test_one_euro_smooths_a_noisy_still_signal() -> None:
    rng = np.random.default_rng(5)
    truth = np.full((200, 1, 2), 250.0)
    noisy = truth + rng.normal(0.0, 1.0, truth.shape)
    defaults = TrackingSettings()
    f = OneEuroFilter(defaults.min_cutoff_hz, defaults.beta)
    out = np.array([f(x, i / FPS, scale=150.0) for i, x in enumerate(noisy)])
    raw_var = float(np.var(noisy[20:] - truth[20:]))
    smooth_var = float(np.var(out[20:] - truth[20:]))
    assert smooth_var < raw_var / 4  # an exponential filter at ~1.5 Hz would give /7


def test_one_euro_follows_a_fast_step_with_little_lag() -> None:
    """The cutoff rises with speed: a jump is followed within a few samples, while the
    same filter without the speed term (beta 0) is still far behind."""
    step = [np.zeros((1, 2))] * 10 + [np.full((1, 2), 100.0)] * 20

    def samples_to_90_percent(beta: float) -> int:
        f = OneEuroFilter(1.0, beta)
        out = [float(f(x, i / FPS, scale=10.0)[0, 0]) for i, x in enumerate(step)]
        after = out[10:]
        return next(i for i, v in enumerate(after) if v >= 90.0) + 1

    fast = samples_to_90_percent(beta=1.0)
    slow = samples_to_90_percent(beta=0.0)
    assert fast <= 3
    assert slow >= 3 * fast


def test_one_euro_restarts_when_time_goes_back() -> None:
    f = OneEuroFilter(1.0, 0.0)
    f(np.zeros((1, 2)), 1.0)
    f(np.ones((1, 2)), 1.0 + 1 / FPS)
    # A new clip (earlier timestamps) must not be smoothed toward the old one.
    np.testing.assert_array_equal(f(np.full((1, 2), 50.0), 0.5), np.full((1, 2), 50.0))


# --- a real talking head ----------------------------------------------------------------------


@pytest.mark.testdata
def test_obama_video_is_tracked_in_every_frame_with_few_detector_calls(
    analyzer: FaceAnalyzer, testdata_dir: Path, read_frames: ReadFrames
) -> None:
    frames = read_frames(testdata_dir / OBAMA_VIDEO)
    assert len(frames) > 200
    faces, stages = face_stages(analyzer)
    packets = run_stages(stages, frames, EngineSettings())
    with_face = sum(1 for p in packets if p.faces)
    detector_calls = sum(1 for p in packets if searched(p))
    track_ids = {f.track_id for p in packets for f in p.faces}
    print(
        f"obama_1.mp4: {len(frames)} frames, face in {with_face}, "
        f"{detector_calls} detector calls, tracks {sorted(track_ids)}"
    )
    assert with_face == len(frames)
    assert all(len(p.faces) == 1 for p in packets)
    assert all(p.faces[0].landmarks is not None and p.faces[0].fit is not None for p in packets)
    assert detector_calls == faces.finder.detections_run
    assert detector_calls <= len(frames) / 10
    assert track_ids == {0}  # never lost, never restarted


@pytest.mark.testdata
def test_smoothing_steadies_the_tracked_mesh(
    analyzer: FaceAnalyzer, testdata_dir: Path, read_frames: ReadFrames
) -> None:
    """Frame-to-frame shimmer (second differences of the points) on a talking head:
    measured 1.2% of the eye distance raw, 0.4% smoothed (default settings)."""
    frames = read_frames(testdata_dir / OBAMA_VIDEO)[:120]
    shimmer = {}
    for smoothing in (False, True):
        _, stages = face_stages(analyzer)
        packets = run_stages(stages, frames, with_tracking(smoothing=smoothing))
        points = np.array([p.faces[0].landmarks[:, :2] for p in packets], np.float64)
        second = points[2:] - 2 * points[1:-1] + points[:-2]
        shimmer[smoothing] = float(np.linalg.norm(second, axis=2).mean()) / inter_ocular(points[0])
    assert shimmer[True] < shimmer[False] / 2, shimmer


# --- synthetic motion over a real face --------------------------------------------------------


def moving_face(frames: int, px_per_frame: float) -> tuple[list[Frame], list[int]]:
    """Grace Hopper sliding right across a plain 1280×720 frame; returns frames and x."""
    portrait = load(BUNDLED[0])
    canvas = np.full((720, 1280, 3), 128, np.uint8)
    xs = [int(40 + px_per_frame * i) for i in range(frames)]
    return [paste(canvas, portrait, x, 60) for x in xs], xs


def test_a_moving_face_keeps_its_track_and_fresh_boxes(analyzer: FaceAnalyzer) -> None:
    frames, xs = moving_face(45, 15.0)  # 450 px/s: more than two face widths a second
    reference = analyzer.analyze_image(load(BUNDLED[0]))[0]
    assert reference.landmarks is not None
    assert reference.detection is not None
    face_width = reference.detection.width
    settings = dataclasses.replace(EngineSettings(), detection=DetectionSettings(redetect_every=10))
    faces, stages = face_stages(analyzer)
    finder = faces.finder
    crop_x: list[float] = []  # where the tracker's crop (from the raw mesh) was centred
    packets = run_stages(stages, frames, settings, lambda _: crop_x.append(finder.tracks[0].roi.cx))
    assert all(len(p.faces) == 1 for p in packets)
    assert {p.faces[0].track_id for p in packets} == {0}
    ran = [i for i, p in enumerate(packets) if searched(p)]
    assert ran == list(range(0, 45, 10))
    assert finder.detections_run == len(ran)
    reference_crop_x = roi_from_landmarks(reference.landmarks).cx
    lag = []
    for i, (packet, x) in enumerate(zip(packets, xs, strict=True)):
        face = packet.faces[0]
        centre_x = float(reference.landmarks[:, 0].mean()) + x
        assert face.landmarks is not None
        # The crop follows the face itself, not the smoothed mesh.
        assert crop_x[i] == pytest.approx(reference_crop_x + x, abs=0.03 * face_width)
        lag.append((centre_x - float(face.landmarks[:, 0].mean())) / face_width)
        # A box is only reported when the detector ran on this frame, so it is never
        # left behind where the face was.
        if i in ran:
            assert face.detection is not None
            assert face.detection.box[0] < centre_x < face.detection.box[2]
        else:
            assert face.detection is None
    print(f"smoothed mesh behind a face moving 2.3 widths/s: at most {max(lag):.3f} widths")
    # The One Euro filter opens up at this speed (measured 0.05 face widths at most).
    assert max(lag) < 0.1


def test_redetection_refreshes_the_box_of_a_tracked_face(analyzer: FaceAnalyzer) -> None:
    frames, xs = moving_face(12, 20.0)
    settings = dataclasses.replace(EngineSettings(), detection=DetectionSettings(redetect_every=5))
    faces, stages = face_stages(analyzer)
    packets = run_stages(stages, frames, settings)
    first, again = packets[0].faces[0].detection, packets[5].faces[0].detection
    assert first is not None
    assert again is not None
    assert packets[5].faces[0].track_id == 0
    moved = again.center[0] - first.center[0]
    assert moved == pytest.approx(xs[5] - xs[0], abs=8.0)
    assert len(faces.finder.tracks) == 1


def test_a_face_that_leaves_is_dropped_and_found_again(analyzer: FaceAnalyzer) -> None:
    face, _ = moving_face(1, 0.0)
    blank = np.full_like(face[0], 128)
    frames = [face[0]] * 5 + [blank] * 5 + [face[0]] * 5
    faces, stages = face_stages(analyzer)
    packets = run_stages(stages, frames, EngineSettings())
    counts = [len(p.faces) for p in packets]
    assert counts == [1] * 5 + [0] * 5 + [1] * 5
    # While no face is tracked the detector runs on every frame, then tracking resumes.
    ran = [searched(p) for p in packets]
    assert ran[:5] == [True, False, False, False, False]
    assert all(ran[6:11])
    assert ran[11:] == [False] * 4
    assert packets[-1].faces[0].track_id == 1  # a new track for the returning face
    assert faces.finder.tracks[0].track_id == 1
