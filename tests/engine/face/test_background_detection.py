"""The face stage's periodic detection on live frames: run in the background while every
face is tracked, its new faces joining a later frame; offline it stays in place."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.profile import StepTimer
from engine.core.settings import DetectionSettings, EngineSettings
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer
from engine.face.finder import BACKGROUND_STEP
from engine.face.fit import FaceFitter
from engine.stages.face_models import FaceModels
from engine.stages.faces import FaceStage
from engine.stages.fit import FitStage
from tests.engine.face_data import BUNDLED, load, paste, searched

REFRESH_EVERY = 4
SETTINGS = dataclasses.replace(
    EngineSettings(), detection=DetectionSettings(redetect_every=REFRESH_EVERY)
)


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled()


def second_face_enters(frames: int, enters: int) -> list[Frame]:
    """Grace Hopper on the left all along; her mirror image on the right from `enters` on."""
    canvas = np.full((720, 1280, 3), 128, np.uint8)
    portrait = load(BUNDLED[0])
    alone = paste(canvas, portrait, 40, 60)
    both = paste(alone, np.ascontiguousarray(portrait[:, ::-1]), 720, 60)
    return [alone if i < enters else both for i in range(frames)]


class Pipeline:
    def __init__(self, analyzer: FaceAnalyzer) -> None:
        self.faces = FaceStage(FaceModels.ready(analyzer))
        self.finder = self.faces.finder
        self.stages = [self.faces, FitStage(FaceFitter())]

    def run(self, frame: Frame, frame_id: int, *, live: bool) -> FramePacket:
        packet = FramePacket(
            frame_id, 5_000_000_000 + frame_id * 33_333_333, frame, live=live, steps=StepTimer()
        )
        for stage in self.stages:
            packet = stage.process(packet, SETTINGS)
        if live:  # let a refresh this frame started finish before the next frame comes
            deadline = time.monotonic() + 30
            while self.faces.refreshing and time.monotonic() < deadline:
                time.sleep(0.005)
            assert not self.faces.refreshing
        return packet


def test_live_refresh_runs_in_the_background_and_joins_a_later_frame(
    analyzer: FaceAnalyzer,
) -> None:
    pipeline = Pipeline(analyzer)
    try:
        packets = [pipeline.run(f, i, live=True) for i, f in enumerate(second_face_enters(8, 2))]
    finally:
        pipeline.faces.close()
    # Only the first frame (nothing tracked yet) waited for the detector; the refresh
    # started on frame 4 is timed apart, on the frame that takes its faces.
    assert [searched(p) for p in packets] == [True] + [False] * 7
    background = f"background/{BACKGROUND_STEP}"
    assert [background in p.steps.times_ms for p in packets] == [False] * 5 + [True, False, False]
    assert not packets[REFRESH_EVERY].skipped
    # The face that entered at frame 2 was found by the refresh started on frame 4 and
    # is meshed from frame 5 on; the first face kept its track throughout.
    counts = [len(p.faces) for p in packets]
    assert counts == [1] * (REFRESH_EVERY + 1) + [2] * 3
    assert all(p.faces[0].track_id == 0 for p in packets)
    assert pipeline.finder.detections_run == 2
    thread = pipeline.finder._background
    assert thread is not None and not thread.alive  # close() joined its thread


def test_offline_the_refresh_runs_on_its_own_frame(analyzer: FaceAnalyzer) -> None:
    pipeline = Pipeline(analyzer)
    packets = [pipeline.run(f, i, live=False) for i, f in enumerate(second_face_enters(6, 2))]
    ran = [searched(p) for p in packets]
    assert ran == [True, False, False, False, True, False]
    assert [len(p.faces) for p in packets] == [1, 1, 1, 1, 2, 2]
    background = pipeline.finder._background
    assert background is not None and not background.alive  # no thread was ever started


def test_a_refresh_that_finishes_after_the_tracks_changed_is_dropped(
    analyzer: FaceAnalyzer,
) -> None:
    pipeline = Pipeline(analyzer)
    frames = second_face_enters(REFRESH_EVERY + 1, 2)
    try:
        for i, frame in enumerate(frames):
            pipeline.run(frame, i, live=True)  # frame 4 starts a refresh (both faces)
        # An unusable frame resets the tracker: the refresh's world is gone.
        pipeline.run(np.zeros((0, 0, 3), np.uint8), len(frames), live=True)
        after = pipeline.run(frames[0], len(frames) + 1, live=True)  # Grace Hopper alone
    finally:
        pipeline.faces.close()
    # Nothing was tracked, so this frame detected in place, and found one face: the
    # refresh's two faces (from an older frame) were not added.
    assert searched(after)
    assert len(after.faces) == 1
    assert pipeline.finder.detections_run == 2  # frame 0 and this one
