"""Malformed frames never crash face analysis (the live stream must not die on one), and
the debug overlay draws on and around the face only."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.settings import DetectionSettings, EngineSettings, OutputSettings
from engine.face.analyzer import FaceAnalyzer
from engine.face.fit import FaceFitter
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.stages.base import Stage
from engine.stages.face_models import FaceModels
from engine.stages.faces import FaceStage
from engine.stages.fit import FitStage
from engine.stages.overlay import OverlayStage
from engine.swap.library import SourceLibrary
from tests.engine.face_data import BUNDLED, load


def portrait() -> np.ndarray:
    return load(BUNDLED[0])


# Each builds a frame that is not a usable BGR uint8 image (several hold a real face).
MALFORMED: dict[str, Callable[[], np.ndarray]] = {
    "empty": lambda: np.zeros((0, 0, 3), np.uint8),
    "no-columns": lambda: np.zeros((48, 0, 3), np.uint8),
    "one-pixel": lambda: np.zeros((1, 1, 3), np.uint8),
    "float32": lambda: portrait().astype(np.float32),
    "uint16": lambda: portrait().astype(np.uint16) * 257,
    "grayscale": lambda: cv2.cvtColor(portrait(), cv2.COLOR_BGR2GRAY),
    "one-channel": lambda: cv2.cvtColor(portrait(), cv2.COLOR_BGR2GRAY)[:, :, None],
    "bgra": lambda: cv2.cvtColor(portrait(), cv2.COLOR_BGR2BGRA),
    "flat": lambda: portrait().reshape(-1),
}


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled()


def overlay_on() -> EngineSettings:
    return dataclasses.replace(EngineSettings(), output=OutputSettings(debug_overlay=True))


def face_stages(analyzer: FaceAnalyzer) -> list[Stage]:
    return [
        FaceStage(FaceModels.ready(analyzer)),
        FitStage(FaceFitter()),
        OverlayStage(),
    ]


def run(
    stages: list[Stage], frame: np.ndarray, settings: EngineSettings, i: int = 0
) -> FramePacket:
    packet = FramePacket(i, 1_000_000_000 + i * 33_333_333, frame)
    for stage in stages:
        packet = stage.process(packet, settings)
    return packet


@pytest.fixture(scope="module")
def engine(analyzer: FaceAnalyzer) -> Engine:
    """The whole live pipeline (swap with the bundled source face, overlay on), run on
    the calling thread through Engine.process."""
    library = SourceLibrary(analyzer)
    settings = with_sources(overlay_on(), library)
    return Engine(build_stages(settings, library=library), settings)


@pytest.mark.parametrize("name", MALFORMED)
def test_analyzer_finds_nothing_in_a_malformed_frame(analyzer: FaceAnalyzer, name: str) -> None:
    frame = MALFORMED[name]()
    assert analyzer.detect(frame, DetectionSettings()) == []
    assert analyzer.analyze_image(frame) == []


@pytest.mark.parametrize("name", MALFORMED)
def test_face_stages_pass_a_malformed_frame_through(analyzer: FaceAnalyzer, name: str) -> None:
    frame = MALFORMED[name]()
    packet = run(face_stages(analyzer), frame, overlay_on())
    assert packet.faces == []
    assert packet.result is frame


@pytest.mark.parametrize("name", MALFORMED)
def test_engine_passes_a_malformed_frame_through(engine: Engine, name: str) -> None:
    frame = MALFORMED[name]()
    errors_before = engine.stage_errors
    packet = engine.process(FramePacket(0, 0, frame))
    assert packet.error is None, packet.error
    assert engine.stage_errors == errors_before
    assert packet.result is frame
    assert packet.faces == []
    assert packet.check is not None and not packet.check.swapped  # the outputs cover it


def test_tracking_recovers_after_malformed_and_resized_frames(analyzer: FaceAnalyzer) -> None:
    stages = face_stages(analyzer)
    face = portrait()
    bigger = cv2.copyMakeBorder(face, 100, 0, 300, 0, cv2.BORDER_CONSTANT, value=(60, 60, 60))
    sequence = [face, face, MALFORMED["empty"](), MALFORMED["grayscale"](), face, bigger, bigger]
    settings = EngineSettings()
    counts = [len(run(stages, f, settings, i).faces) for i, f in enumerate(sequence)]
    assert counts[:5] == [1, 1, 0, 0, 1]
    # The face jumps with the resize: the tracked crop misses it on that frame (measured:
    # the track is dropped) and the detector finds it again on the next.
    assert counts[6] == 1


@pytest.mark.parametrize(
    "cut",
    [
        (slice(None), slice(230, None)),
        (slice(240, None), slice(None)),
        (slice(250, None), slice(250, None)),
    ],
    ids=["left-half-gone", "top-half-gone", "corner-only"],
)
def test_a_face_cut_by_the_frame_edge_never_breaks_the_pipeline(
    engine: Engine, cut: tuple[slice, slice]
) -> None:
    """Landmarks run past the frame (measured: 60 px left of it); sampling, rendering and
    drawing there must not fail, whether or not the face is still found."""
    frame = np.ascontiguousarray(portrait()[cut])
    for i in range(3):
        packet = engine.process(FramePacket(i, i * 33_333_333, frame))
        assert packet.error is None, packet.error
        assert packet.result.shape == frame.shape
        assert len(packet.faces) <= 1


def test_a_non_contiguous_view_is_analysed(analyzer: FaceAnalyzer) -> None:
    """A mirrored or cropped view of a frame (negative or large strides) is still a frame."""
    face = portrait()
    for view in (face[:, ::-1], face[20:-20, 10:-10], face[::2, ::2]):
        assert not view.flags.c_contiguous
        assert len(analyzer.analyze_image(view)) == 1


# --- debug overlay ----------------------------------------------------------------------------


def face_bounds(
    landmarks: np.ndarray, margin: float, min_pad_px: float = 0.0
) -> tuple[int, int, int, int]:
    """The mesh's bounding box grown by `margin` face widths (at least `min_pad_px`)."""
    x0, y0 = landmarks[:, :2].min(axis=0)
    x1, y1 = landmarks[:, :2].max(axis=0)
    pad = max(margin * float(x1 - x0), min_pad_px)
    return int(x0 - pad), int(y0 - pad), int(x1 + pad), int(y1 + pad)


def changed_pixels(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2) > 20


@pytest.mark.parametrize("frames", [1, 3], ids=["detected", "tracked"])
def test_debug_overlay_draws_on_and_near_the_face(analyzer: FaceAnalyzer, frames: int) -> None:
    face = portrait()
    canvas = cv2.copyMakeBorder(face, 0, 0, 400, 400, cv2.BORDER_CONSTANT, value=(128,) * 3)
    stages = face_stages(analyzer)
    for i in range(frames):
        packet = run(stages, canvas, overlay_on(), i)
    assert len(packet.faces) == 1
    # The detector's box comes with the face on the frame that found it only.
    assert (packet.faces[0].detection is not None) == (frames == 1)
    landmarks = packet.faces[0].landmarks
    assert landmarks is not None
    assert packet.output is not None
    assert packet.output.shape == canvas.shape
    changed = changed_pixels(packet.output, canvas)
    x0, y0, x1, y1 = face_bounds(landmarks, margin=0.1)
    # The mesh covers the face: many changed pixels there.
    assert changed[y0:y1, x0:x1].mean() > 0.2
    # Box, crop square, axes and pose label stay near it; the rest is untouched. (The
    # label's text has a fixed size: about 100 px beside a small face.)
    x0, y0, x1, y1 = face_bounds(landmarks, margin=0.8, min_pad_px=120)
    outside = changed.copy()
    outside[max(y0, 0) : y1, max(x0, 0) : x1] = False
    assert not outside.any(), np.argwhere(outside)[:5]
    assert packet.frame is canvas
    np.testing.assert_array_equal(canvas[:, :400], 128)  # the captured frame is not drawn on


def test_debug_overlay_off_leaves_the_frame_alone(analyzer: FaceAnalyzer) -> None:
    face = portrait()
    packet = run(face_stages(analyzer), face, EngineSettings())
    assert len(packet.faces) == 1
    assert packet.output is None
    assert packet.result is face


def test_engine_output_with_overlay_differs_only_near_the_face(engine: Engine) -> None:
    face = load(BUNDLED[1])
    on = engine.process(FramePacket(0, 0, face))
    overlaid = engine.settings
    engine.set_settings(dataclasses.replace(overlaid, output=OutputSettings()))
    try:
        off = engine.process(FramePacket(1, 33_333_333, face))
    finally:
        engine.set_settings(overlaid)
    assert on.error is None
    assert off.error is None
    landmarks = on.faces[0].landmarks
    changed = changed_pixels(on.result, off.result)
    x0, y0, x1, y1 = face_bounds(landmarks, margin=0.1)
    assert changed[y0:y1, x0:x1].mean() > 0.2
    x0, y0, x1, y1 = face_bounds(landmarks, margin=0.8, min_pad_px=120)
    changed[max(y0, 0) : y1, max(x0, 0) : x1] = False
    assert not changed.any()
