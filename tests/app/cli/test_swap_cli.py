"""`fusecam swap` end to end with the built-in swapper: the face changes, the rest of the
picture does not (beyond the invisible watermark's few grey levels), every video frame is
written, the "SYNTHETIC" label is on unless --no-label, and a bad source says why.

Runs `app.cli.main` in-process with real models. FUSECAM_CACHE_DIR points into tmp_path
so the user's cache is never touched. Videos are FFV1 .mkv (lossless both ways), so
"unchanged" can be checked exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from app.cli.main import main
from engine.core.face_records import Face
from engine.core.paths import SAMPLE_FACES_DIR
from engine.face.analyzer import FaceAnalyzer
from engine.outputs.label import draw_label
from engine.watermark.detect import detect
from engine.watermark.embed import max_change
from tests.conftest import REPO_ROOT

GRACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"
EILEEN = SAMPLE_FACES_DIR / "astronaut_eileen_collins.png"
DEV_VIDEO = REPO_ROOT.parent / "shared" / "testdata" / "video" / "obama_1.mp4"
ReadFrames = Callable[[Path], list[NDArray[np.uint8]]]  # the `read_frames` fixture (conftest)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("FUSECAM_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled("cpu")


def invoke(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return code, capsys.readouterr().err


def face_regions(
    analyzer: FaceAnalyzer, frame: NDArray[np.uint8]
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """(well inside the face, far outside it): the mesh hull eroded by 4 px, and the
    complement of the hull grown by a fifth of the face's size."""
    faces = analyzer.analyze_image(frame)
    assert faces, "no face in the target"
    face: Face = faces[0]
    assert face.landmarks is not None
    hull = cv2.convexHull(face.landmarks[:, :2].astype(np.float32))[:, 0, :]
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(hull).astype(np.int32)], 1)
    size = int(np.sqrt(mask.sum()))
    inside = cv2.erode(mask, np.ones((9, 9), np.uint8)) > 0
    grow = max(3, size // 5)
    near = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1,) * 2))
    return inside, near == 0


def assert_swapped(
    analyzer: FaceAnalyzer, target: NDArray[np.uint8], output: NDArray[np.uint8]
) -> float:
    """The face changed; far from it every pixel is the target's, give or take the
    watermark (and the label in the corner, unless the output was made with
    --no-label: `far` excludes the corner then). Returns the face's mean absolute
    change (grey levels)."""
    assert output.shape == target.shape
    inside, far = face_regions(analyzer, target)
    far = far & ~label_corner(target.shape[:2])
    moved = np.abs(output.astype(np.int16) - target)[far]
    assert moved.max() <= max_change(), moved.max()
    change = float(np.abs(output.astype(np.int16) - target)[inside].mean())
    assert change > 8.0, change
    return change


def label_corner(shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """The label's box on a frame of `shape`: the bounding box of what drawing it
    changes on a white frame."""
    white = np.full((*shape[:2], 3), 255, np.uint8)
    draw_label(white)
    ys, xs = np.nonzero((white != 255).any(axis=2))
    corner = np.zeros(shape[:2], bool)
    corner[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1] = True
    return corner


def test_swap_image_changes_the_face_and_nothing_far_from_it(
    analyzer: FaceAnalyzer, tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "OUT.png"
    code, err = invoke(
        ["swap", "--source", str(GRACE), "--target", str(EILEEN), "--output", str(out)], capsys
    )
    assert code == 0, err
    output = cv2.imread(str(out))
    target = cv2.imread(str(EILEEN))
    assert output is not None and target is not None
    assert_swapped(analyzer, target, output)  # measured: 31 grey levels
    assert list((cache_dir / "sources").glob("*.npz")), "the source was not cached"
    assert detect(output).marked


def test_swap_outputs_carry_the_label_unless_no_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUSECAM_LOG_DIR", str(tmp_path / "log"))
    target = cv2.imread(str(EILEEN))
    assert target is not None
    corner = label_corner(target.shape)
    darkened = {}
    for flag in ("--label", "--no-label"):
        out = tmp_path / f"OUT{flag}.png"
        argv = ["swap", "--source", str(GRACE), "--target", str(EILEEN), "--output", str(out)]
        code, err = invoke([*argv, flag] if flag == "--no-label" else argv, capsys)
        assert code == 0, err
        output = cv2.imread(str(out))
        assert output is not None
        # The badge darkens its box to 2/5 and writes white text on it.
        darkened[flag] = float(np.abs(target[corner].astype(int) - output[corner]).mean())
    assert darkened["--label"] > 10, darkened
    assert darkened["--no-label"] < 2, darkened


def test_swap_image_with_several_source_photos(
    analyzer: FaceAnalyzer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "OUT.png"
    code, err = invoke(
        ["swap", "--source", str(GRACE), "--source", str(EILEEN), "--target", str(EILEEN),
         "--output", str(out)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    # Grace's portrait saw its face best, so it leads the identity (engine/swap/identity.py):
    # onto Eileen, the face changes.
    output, target = cv2.imread(str(out)), cv2.imread(str(EILEEN))
    assert output is not None and target is not None
    assert_swapped(analyzer, target, output)


def test_a_source_without_a_face_fails_with_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((240, 320, 3), 100, np.uint8))
    out = tmp_path / "OUT.png"
    code, err = invoke(
        ["swap", "--source", str(blank), "--target", str(EILEEN), "--output", str(out)], capsys
    )
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [f"fusecam: error: {blank}: no face found"], err
    assert not out.exists()


def write_clip(frames: list[NDArray[np.uint8]], path: Path, fps: float = 30.0) -> Path:
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"FFV1"), fps, (width, height))
    assert writer.isOpened(), "OpenCV cannot write FFV1 .mkv here"
    try:
        for frame in frames:
            writer.write(frame)
    finally:
        writer.release()
    return path


def swap_clip(
    analyzer: FaceAnalyzer,
    frames: list[NDArray[np.uint8]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    read_frames: ReadFrames,
) -> list[float]:
    target = write_clip(frames, tmp_path / "target.mkv")
    assert len(read_frames(target)) == len(frames)
    out = tmp_path / "OUT.mkv"
    code, err = invoke(
        ["swap", "--source", str(GRACE), "--target", str(target), "--output", str(out)], capsys
    )
    assert code == 0, err
    assert f"wrote {len(frames)} frames" in err
    written = read_frames(out)
    assert len(written) == len(frames), "every frame is written, in order"
    return [assert_swapped(analyzer, t, o) for t, o in zip(frames, written, strict=True)]


def test_swap_video_swaps_every_frame(
    analyzer: FaceAnalyzer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    read_frames: ReadFrames,
) -> None:
    portrait = cv2.imread(str(EILEEN))
    assert portrait is not None
    # The portrait drifting a few pixels per frame: tracking carries the face along.
    frames = [np.roll(portrait, (2 * i, 3 * i), axis=(0, 1)) for i in range(6)]
    changes = swap_clip(analyzer, frames, tmp_path, capsys, read_frames)
    assert min(changes) > 8.0


@pytest.mark.testdata
def test_swap_video_swaps_every_frame_of_a_dev_clip(
    analyzer: FaceAnalyzer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    read_frames: ReadFrames,
) -> None:
    capture = cv2.VideoCapture(str(DEV_VIDEO))
    frames: list[NDArray[np.uint8]] = []
    try:
        while len(frames) < 20:
            ok, frame = capture.read()
            assert ok, f"{DEV_VIDEO}: could not read frame {len(frames)}"
            frames.append(frame)
    finally:
        capture.release()
    changes = swap_clip(analyzer, frames, tmp_path, capsys, read_frames)
    assert min(changes) > 8.0, changes  # measured: 18.1–18.5 grey levels


@pytest.mark.testdata
def test_a_video_swaps_the_same_every_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read_frames: ReadFrames
) -> None:
    """The landmarks' smoothing reads the time between frames: timed by the wall clock,
    two swaps of one clip differed in every frame after the first (up to 72 grey
    levels), as fast or slow as the machine ran. Stamped with the video's own time they
    are the same."""
    capture = cv2.VideoCapture(str(DEV_VIDEO))
    frames = [capture.read()[1] for _ in range(8)]
    capture.release()
    target = write_clip(frames, tmp_path / "target.mkv")
    outputs = []
    for run in range(2):
        out = tmp_path / f"OUT{run}.mkv"
        code, err = invoke(
            ["swap", "--source", str(GRACE), "--target", str(target), "--output", str(out)],
            capsys,
        )
        assert code == 0, err
        outputs.append(read_frames(out))
    assert len(outputs[0]) == len(outputs[1]) == len(frames)
    for first, second in zip(*outputs, strict=True):
        assert np.array_equal(first, second)
