"""A real `fusecam run` on a face video whose face is covered for a while and then comes
back: the recording never holds the raw face (engine-level detail:
tests/engine/outputs/test_guard_video.py)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from app.cli.main import main
from engine.face.analyzer import FaceAnalyzer

pytestmark = [pytest.mark.testdata, pytest.mark.slow]

FRAMES = 120
COVERED = range(40, 80)  # 1.3 s: longer than the hold, so the cover shows
LEAK_MAD = 3.0


def _inner_box(analyzer: FaceAnalyzer, frame: np.ndarray) -> tuple[int, int, int, int]:
    faces = analyzer.analyze_image(frame)
    assert faces and faces[0].landmarks is not None
    lo, hi = faces[0].landmarks[:, :2].min(axis=0), faces[0].landmarks[:, :2].max(axis=0)
    inset = 0.15 * (hi - lo)
    (x0, y0), (x1, y1) = (lo + inset).astype(int), (hi - inset).astype(int)
    return int(x0), int(y0), int(x1), int(y1)


def test_a_run_never_records_the_raw_face(testdata_dir: Path, read_frames, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    originals = read_frames(testdata_dir / "video" / "obama_1.mp4")[:FRAMES]
    analyzer = FaceAnalyzer.bundled()
    boxes = [_inner_box(analyzer, f) for f in originals]
    clip = tmp_path / "covered.mkv"
    h, w = originals[0].shape[:2]
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"FFV1"), 30.0, (w, h))
    x0, y0, x1, y1 = boxes[COVERED[0]]
    for i, frame in enumerate(originals):
        shown = frame.copy()
        if i in COVERED:  # a hand over the whole face
            shown[max(0, y0 - 60) : y1 + 80, max(0, x0 - 60) : x1 + 60] = (90, 120, 150)
        writer.write(shown)
    writer.release()

    out = tmp_path / "out.mkv"
    command = ["run", "--input", str(clip), "--no-preview", "--no-settings", "--record", str(out)]
    assert main(command) == 0
    recorded = read_frames(out)
    assert len(recorded) >= FRAMES // 2

    def closest_original(frame: np.ndarray) -> float:
        """The smallest face-region difference to any original frame: ~0 for a raw face."""
        diffs = []
        for original, (a, b, c, d) in zip(originals, boxes, strict=True):
            diff = np.abs(frame[b:d, a:c].astype(int) - original[b:d, a:c]).max(axis=2)
            diffs.append(float(diff.mean()))
        return min(diffs)

    distances = [closest_original(f) for f in recorded]
    assert min(distances) > LEAK_MAD, [round(d, 1) for d in distances]
    # The cover really showed: some recorded frames have no detail left (above the label).
    grey = [cv2.cvtColor(f[: h * 7 // 10], cv2.COLOR_BGR2GRAY) for f in recorded]
    detail = [float(cv2.Laplacian(g, cv2.CV_32F).var()) for g in grey]
    assert sum(d < 5 for d in detail) >= 5, [round(d) for d in detail]
