"""The detect-or-track decision has one home (engine/face/finder.py), and neither moving
it there nor making the detector and landmarker stages one face stage changed anything:
on a real clip the face stage gives the packets the two stages of main at 3fd0cce gave
(data/face_stages_obama60.json, recorded from that code): which frames ran the detector,
the tracks, their boxes and landmarks. Two runs: the clip as it is, and the clip with a
black frame (every track lost while tracking: the search again) and a cut at frame 40
(the picture shifted a third of its width: the face jumps out of its crop)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.profile import StepTimer
from engine.core.settings import EngineSettings
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer
from engine.face.finder import FaceFinder
from engine.face.roi import roi_from_detection, roi_from_landmarks
from engine.stages.face_models import FaceModels
from engine.stages.faces import FaceStage
from tests.engine.face_data import OBAMA_VIDEO, searched

RECORDED = Path(__file__).parent / "data" / "face_stages_obama60.json"
FRAMES = 60
FPS = 30.0


def _variants(frames: list[Frame]) -> dict[str, list[Frame]]:
    cut = [
        f if i < 40 else np.ascontiguousarray(np.roll(f, f.shape[1] // 3, axis=1))
        for i, f in enumerate(frames)
    ]
    cut[20] = np.zeros_like(frames[20])
    return {"clip": frames, "cut": cut}


def _summary(packet: FramePacket) -> list[Any]:
    """[the detector ran, the face stage's skip reason, faces]. The recording has one
    column more: its second and third are the old detector's and landmarker's skip
    reasons."""
    faces = []
    for face in packet.faces:
        box = None if face.detection is None else [float(v) for v in face.detection.box]
        assert face.landmarks is not None
        xy = face.landmarks[:, :2]
        shape = [float(xy[:, 0].sum()), float(xy[:, 1].sum()), float(np.abs(xy - xy.mean(0)).sum())]
        faces.append([face.track_id, box, shape])
    return [searched(packet), packet.skipped.get(FaceStage.name), faces]


def _run(analyzer: FaceAnalyzer, frames: list[Frame]) -> list[list[Any]]:
    stage, settings = FaceStage(FaceModels.ready(analyzer)), EngineSettings()
    out = []
    for i, frame in enumerate(frames):
        packet = FramePacket(i, 5_000_000_000 + round(i * 1e9 / FPS), frame, steps=StepTimer())
        out.append(_summary(stage.process(packet, settings)))
    return out


@pytest.mark.testdata
@pytest.mark.parametrize("variant", ["clip", "cut"])
def test_same_frames_give_the_packets_the_old_stages_gave(
    variant: str, testdata_dir: Path, read_frames: Callable[[Path], list[Frame]]
) -> None:
    frames = _variants(read_frames(testdata_dir / OBAMA_VIDEO)[:FRAMES])[variant]
    recorded = json.loads(RECORDED.read_text())[variant]
    got = _run(FaceAnalyzer.bundled(), frames)
    assert len(got) == len(recorded) == FRAMES
    # Which frames searched: exactly. The old detector skipped the others ("tracking"),
    # and the landmarker never skipped (a face on every frame); the face stage tracks
    # as part of its work, so it never skips here.
    assert [g[0] for g in got] == [r[0] for r in recorded]
    assert {(r[1], r[2]) for r in recorded} == {(None, None), ("tracking", None)}
    assert [g[1] for g in got] == [None] * FRAMES
    for i, (mine, old) in enumerate(zip(got, recorded, strict=True)):
        assert [f[0] for f in mine[2]] == [f[0] for f in old[3]], f"frame {i}: track ids"
        for (_, box, shape), (_, old_box, old_shape) in zip(mine[2], old[3], strict=True):
            # Recorded to 2 decimals; the landmark sums add 468 points.
            assert (box is None) == (old_box is None), f"frame {i}"
            if box is not None:
                assert box == pytest.approx(old_box, abs=0.02), f"frame {i}: box"
            assert shape == pytest.approx(old_shape, rel=1e-5, abs=0.02), f"frame {i}: mesh"
    ran = [i for i, g in enumerate(got) if g[0]]
    # The clip detects on its first frame and at the refresh; the cut also searches again
    # at the black frame (every track lost), the frame after it (no track) and at the jump.
    assert ran == ([0, 30] if variant == "clip" else [0, 20, 21, 40])


@pytest.mark.testdata
def test_the_finder_says_where_to_mesh_and_takes_the_mesh_back(
    testdata_dir: Path, read_frames: Callable[[Path], list[Frame]]
) -> None:
    frames = read_frames(testdata_dir / OBAMA_VIDEO)[:2]
    analyzer, finder, settings = FaceAnalyzer.bundled(), FaceFinder(), EngineSettings()
    assert finder.find(analyzer, frames[0], settings, live=False)  # nothing tracked: detects
    (face,) = finder.faces(detected=True)
    crop = finder.crop(face)
    # A new track is meshed around the box that found it, twice (engine/stages/faces.py).
    assert crop is not None and crop.first and face.detection is not None
    assert crop.roi == roi_from_detection(face.detection)
    mesh = analyzer.mesh.run(
        frames[0], roi_from_landmarks(analyzer.mesh.run(frames[0], crop.roi).landmarks)
    )
    finder.follow(face, mesh.landmarks, mesh.presence, 0.0, settings)
    # Followed: the next frame only tracks, and looks where the mesh was.
    assert not finder.find(analyzer, frames[1], settings, live=False)
    (tracked,) = finder.faces(detected=False)
    after = finder.crop(tracked)
    assert after is not None and not after.first
    assert after.roi == roi_from_landmarks(mesh.landmarks)  # no motion yet to move it on
    finder.lose(tracked)
    # Lost: its track is gone, nothing searched this frame, so the finder may search again.
    assert finder.crop(tracked) is None and finder.tracks == ()
    assert finder.lost_all([], searched=False)
    assert [f.track_id for f in finder.search_again(analyzer, frames[1], settings)] == [1]
    finder.stop()
