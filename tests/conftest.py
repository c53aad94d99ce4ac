"""Fixtures shared by every test package: paths, real test data, tiny generated videos."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.core.paths import SAMPLE_FACES_DIR

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTDATA_DIR = REPO_ROOT.parent / "shared" / "testdata"

# Writes a small video and returns its path; see `make_video`.
VideoFactory = Callable[..., Path]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `testdata` need ../shared/testdata; skip them where it is absent."""
    if TESTDATA_DIR.is_dir():
        return
    skip = pytest.mark.skip(reason=f"test data not found at {TESTDATA_DIR}")
    for item in items:
        if "testdata" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _ctrl_c_reaches_subprocesses() -> Any:
    """Tests send SIGINT to the `fusecam` processes they start, as Ctrl+C would. A test
    run started as a background job (`make test &` in a script) inherits SIGINT
    *ignored* (POSIX shells' rule for such jobs), its children inherit that through
    exec, and Python then keeps ignoring it: every Ctrl+C case would fail or hang
    there while passing in a terminal. Python's own handler is what a terminal gives."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if previous is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


# Where the platform's user folders come from (platformdirs on Linux; ~ everywhere).
_PLATFORM_DIR_VARS = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


@pytest.fixture(scope="session", autouse=True)
def _private_user_dirs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """No test reads or writes the real user's files: every test (and every subprocess
    it starts) gets a session-private home — its Videos folder (the GUI's default for
    recordings), config, cache and data — and Fusecam's own overrides point there too."""
    root = tmp_path_factory.mktemp("user-dirs")
    home = root / "home"
    home.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("USERPROFILE", str(home))  # Windows' ~
        for name in _PLATFORM_DIR_VARS:
            patch.setenv(name, str(home / name.lower()))
        patch.delenv("XDG_VIDEOS_DIR", raising=False)
        dirs = ("FUSECAM_CACHE_DIR", "FUSECAM_CONFIG_DIR", "FUSECAM_DATA_DIR", "FUSECAM_LOG_DIR")
        for name in dirs:
            patch.setenv(name, str(root / name.lower()))
        yield


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def testdata_dir() -> Path:
    """../shared/testdata; tests using it should also carry `@pytest.mark.testdata`."""
    if not TESTDATA_DIR.is_dir():
        pytest.skip(f"test data not found at {TESTDATA_DIR}")
    return TESTDATA_DIR


@pytest.fixture(scope="session")
def sample_faces() -> dict[str, Path]:
    """The public-domain portraits bundled in engine/resources/faces."""
    faces = SAMPLE_FACES_DIR
    return {
        "grace_hopper": faces / "grace_hopper.jpg",
        "eileen_collins": faces / "astronaut_eileen_collins.png",
    }


def frame_level(index: int) -> int:
    """Grey level of frame `index` in a `make_video` file (distinct, survives lossy codecs)."""
    return (index * 20) % 240 + 10


def write_video(
    path: Path, frames: int = 10, fps: float = 30.0, size: tuple[int, int] = (64, 48)
) -> Path:
    """A video whose frame i is uniformly `frame_level(i)` grey.

    .mkv (FFV1) is lossless, so frame contents can be checked exactly; .mp4 and .avi
    are lossy but keep the levels within a few units.
    """
    codecs = {".mkv": "FFV1", ".mp4": "mp4v", ".avi": "MJPG"}
    fourcc = cv2.VideoWriter.fourcc(*codecs[path.suffix.lower()])
    writer = cv2.VideoWriter(str(path), fourcc, fps, size)
    assert writer.isOpened(), f"OpenCV cannot write {path.suffix} here"
    width, height = size
    try:
        for i in range(frames):
            writer.write(np.full((height, width, 3), frame_level(i), np.uint8))
    finally:
        writer.release()
    return path


@pytest.fixture
def make_video(tmp_path: Path) -> VideoFactory:
    """`make_video(frames=10, fps=30.0, size=(64, 48), name="clip.mkv")` → path in tmp_path."""

    def factory(
        frames: int = 10,
        fps: float = 30.0,
        size: tuple[int, int] = (64, 48),
        name: str = "clip.mkv",
    ) -> Path:
        return write_video(tmp_path / name, frames, fps, size)

    return factory


def read_video_frames(path: Path) -> list[NDArray[np.uint8]]:
    """Every frame OpenCV decodes from `path`, in order (none for an unreadable file)."""
    cap = cv2.VideoCapture(str(path))
    frames: list[NDArray[np.uint8]] = []
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            frames.append(frame)
    finally:
        cap.release()
    return frames


def count_video_frames(path: Path) -> tuple[int, tuple[int, int] | None]:
    """Frames OpenCV decodes from `path` (by reading them all) and their (width, height)."""
    frames = read_video_frames(path)
    return len(frames), ((frames[-1].shape[1], frames[-1].shape[0]) if frames else None)


@pytest.fixture(scope="session")
def video_level() -> Callable[[int], int]:
    """The grey level `make_video` gives frame i."""
    return frame_level


@pytest.fixture(scope="session")
def read_frames() -> Callable[[Path], list[NDArray[np.uint8]]]:
    """Decode a whole video with OpenCV: every frame, in order."""
    return read_video_frames


@pytest.fixture(scope="session")
def count_frames() -> Callable[[Path], tuple[int, tuple[int, int] | None]]:
    """Decode a video with OpenCV: (frame count, (width, height) of the last frame)."""
    return count_video_frames


# --- `fusecam bench` report schema ---------------------------------------------------------

SUMMARY_KEYS = {"p50_ms", "p95_ms", "max_ms"}
RUN_KEYS = {
    "mode", "size", "frames", "fps", "dropped", "peak_rss_mb", "providers",
    "stages", "processing", "end_to_end", "cpu_ms_per_frame", "worst_frames", "faces",
    "faces_per_frame", "gc", "thread_cpu_ms_per_frame",
}  # fmt: skip


def _check_summary(summary: dict[str, float]) -> None:
    assert set(summary) >= SUMMARY_KEYS
    assert 0.0 <= summary["p50_ms"] <= summary["p95_ms"] <= summary["max_ms"]


def _check_bench_report(report: dict[str, Any], frames: int, size: tuple[int, int]) -> None:
    """The schema `fusecam bench --json` promises (engine and CLI tests)."""
    assert [run["mode"] for run in report["runs"]] == ["max", "paced"]
    for run in report["runs"]:
        assert set(run) >= RUN_KEYS, RUN_KEYS - set(run)
        assert run["size"] == list(size)
        assert isinstance(run["providers"], list)
        assert run["fps"] > 0
        assert run["peak_rss_mb"] > 0
        assert run["dropped"] >= 0
        assert run["stages"], "no per-stage timings"
        for summary in (run["processing"], run["end_to_end"]):
            _check_summary(summary)
        for stage in run["stages"].values():
            # Times over the frames a stage ran in; the frames it skipped, by reason.
            skipped = sum(stage.get("skipped", {}).values())
            assert stage["ran"] + skipped == run["frames"], stage
            if stage["ran"]:
                _check_summary(stage)
            else:
                assert set(stage) == {"ran", "skipped"}, stage
        assert 0 < run["frames"] <= frames
        assert run["frames"] + run["dropped"] <= frames
        _check_cpu_and_worst(run)
    max_run = report["runs"][0]
    # Lock-step: every frame after the warm-up is processed and counted, none dropped.
    assert (max_run["frames"], max_run["dropped"]) == (frames, 0)


def _check_cpu_and_worst(run: dict[str, Any]) -> None:
    """Process CPU per frame (all threads), the paced run's share of a core, the worst
    frames slowest first and each one's culprit among the stages that ran in it."""
    assert run["cpu_ms_per_frame"] > 0
    assert ("cpu_share_pct" in run) == (run["mode"] == "paced")
    if run["mode"] == "paced":
        assert run["cpu_share_pct"] > 0 and run["input_fps"] > 0
    worst = run["worst_frames"]
    assert 0 < len(worst) <= min(5, run["frames"])
    times = [w["processing_ms"] for w in worst]
    assert times == sorted(times, reverse=True)
    assert times[0] == pytest.approx(run["processing"]["max_ms"], abs=1e-3)
    for w in worst:
        assert w["stage"] in run["stages"] and run["stages"][w["stage"]]["ran"] > 0
    assert run["gc"]["collections"] >= 0
    assert all(ms > 0 for ms in run["thread_cpu_ms_per_frame"].values())
    # The engine thread's CPU time per frame is only known when profiling.
    profiling = "profile" in run
    assert (run["processing_cpu"] is not None) == profiling
    assert all(("processing_cpu_ms" in w) == profiling for w in worst)
    if profiling:
        _check_summary(run["processing_cpu"])


@pytest.fixture(scope="session")
def check_bench_report() -> Callable[..., None]:
    """`check_bench_report(report, frames=N, size=(w, h))` asserts the bench JSON schema."""
    return _check_bench_report
