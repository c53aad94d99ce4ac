"""The face stage refines the eyes (the iris model) only on faces the swap can use: in
"main" mode the first face kept; every face otherwise. Skipping the others must not change
a single output pixel."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, FaceSelection
from engine.face.analyzer import FaceAnalyzer
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.stages.faces import FaceStage
from engine.swap.library import SourceLibrary
from engine.tools.bench_clips import write_side_by_side

FRAMES = 4


class RefineEveryFace(FaceStage):
    """The face stage as if there were no rule: every face's eyes refined."""

    def refines_eyes(self, kept: list[Face], settings: EngineSettings) -> bool:
        return True


@pytest.fixture(scope="module")
def two_faces(testdata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    """Frames with the same face in each half (both found by the detector)."""
    clip = testdata_dir / "video" / "obama_1.mp4"
    out = tmp_path_factory.mktemp("clip") / "two.mp4"
    write_side_by_side(clip, clip, out, frames=FRAMES, size=(960, 540))
    capture = cv2.VideoCapture(str(out))
    frames = []
    while (read := capture.read())[0]:
        frames.append(read[1])
    capture.release()
    assert len(frames) == FRAMES
    return frames


def run(frames: list[np.ndarray], mode: FaceSelection, every_face: bool) -> list[FramePacket]:
    analyzer = FaceAnalyzer.bundled("cpu")
    library = SourceLibrary(analyzer)
    settings = with_sources(EngineSettings(), library)
    settings = dataclasses.replace(
        settings, swap=dataclasses.replace(settings.swap, face_selection=mode)
    )
    stages = build_stages(settings, library=library)
    if every_face:
        old = stages[0]
        assert isinstance(old, FaceStage)
        stages[0] = RefineEveryFace(old.models)
    engine = Engine(stages, settings)
    for stage in stages:
        stage.prepare(settings)
    packets = []
    for i, frame in enumerate(frames):
        packets.append(engine.process(FramePacket(i, i * 33_000_000, frame)))
    for stage in stages:
        stage.close()
    return packets


@pytest.mark.testdata
def test_main_mode_refines_only_the_swapped_face_with_the_same_pixels(
    two_faces: list[np.ndarray],
) -> None:
    lean = run(two_faces, "main", every_face=False)
    full = run(two_faces, "main", every_face=True)
    for a, b in zip(lean, full, strict=True):
        assert len(a.faces) == 2 and len(b.faces) == 2  # two faces meshed in both runs
        assert a.check is not None and a.check.swapped
        assert a.faces[0].irises is not None and a.faces[1].irises is None
        assert all(face.irises is not None for face in b.faces)
        np.testing.assert_array_equal(a.result, b.result)


@pytest.mark.testdata
def test_all_mode_refines_every_face(two_faces: list[np.ndarray]) -> None:
    packets = run(two_faces[:2], "all", every_face=False)
    for packet in packets:
        assert len(packet.faces) == 2
        assert all(face.irises is not None for face in packet.faces)
