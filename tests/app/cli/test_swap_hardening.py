"""`fusecam swap` never loses a file and never reports success on a broken one: a full
disk, an output that is an input, a stage that fails, signals mid-way (issue 14)."""

from __future__ import annotations

import hashlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.cli.main import main
from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.stages.base import Stage
from tests.app.cli.hardening_support import (
    GRACE,
    growing_file,
    leftovers,
    run_on_full_disk,
    signal_and_wait,
    start_fusecam,
    wait_for,
)
from tests.conftest import write_video

CountFrames = Callable[[Path], tuple[int, tuple[int, int] | None]]


def invoke(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def portrait(tmp_path: Path) -> Path:
    """A target photo with a face (a copy: tests may try to overwrite it)."""
    path = tmp_path / "target.png"
    path.write_bytes((GRACE.parent / "astronaut_eileen_collins.png").read_bytes())
    return path


# --- case 2: an output that is an input ---------------------------------------------------


@pytest.mark.parametrize("link", ["same name", "symlink", "hard link", "source photo"])
def test_an_output_that_is_an_input_is_refused_before_anything_opens(
    tmp_path: Path, portrait: Path, link: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "face.jpg"
    source.write_bytes(GRACE.read_bytes())
    output = {
        "same name": portrait,
        "symlink": tmp_path / "alias.png",
        "hard link": tmp_path / "hard.png",
        "source photo": source,
    }[link]
    if link == "symlink":
        output.symlink_to(portrait)
    elif link == "hard link":
        os.link(portrait, output)
    before = {p: digest(p) for p in (portrait, source)}
    code, err = invoke(
        ["swap", "--source", str(source), "--target", str(portrait), "--output", str(output)],
        capsys,
    )
    assert code == 2
    assert "writing it would destroy the input" in err and err.count("\n") == 1, err
    assert {p: digest(p) for p in before} == before
    assert leftovers(tmp_path) == []


def test_a_video_output_that_is_the_target_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], count_frames: CountFrames
) -> None:
    """The issue's case: it left 17 of 259 frames of the target, with exit code 0."""
    target = write_video(tmp_path / "same.mkv", frames=30)
    code, err = invoke(
        ["swap", "--source", str(GRACE), "--target", str(target), "--output", str(target)],
        capsys,
    )
    assert code == 2 and "is the target" in err
    assert count_frames(target)[0] == 30


def test_an_output_that_is_a_folder_leaves_no_part_file(
    tmp_path: Path, portrait: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    code, err = invoke(
        ["swap", "--source", str(GRACE), "--target", str(portrait), "--output", str(folder)],
        capsys,
    )
    assert code == 2 and "is a folder" in err
    assert list(folder.iterdir()) == [] and leftovers(tmp_path) == []


# --- case 8: a stage that fails, a target without a face ------------------------------------


class _Broken(Stage):
    name = "swapper"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        raise RuntimeError("damaged source cache")


def test_a_stage_that_fails_on_a_frame_fails_the_swap(
    tmp_path: Path,
    portrait: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's case: the swapper raised, yet the unswapped image was written, rc 0."""
    from engine.runtime import factory

    real = factory.build_stages

    def with_a_broken_swapper(*args: object, **kwargs: object) -> list[Stage]:
        stages = real(*args, **kwargs)  # type: ignore[arg-type]
        return [_Broken() if s.name == "swapper" else s for s in stages]

    monkeypatch.setattr(factory, "build_stages", with_a_broken_swapper)
    for target, output in (
        (portrait, tmp_path / "out.png"),
        (write_video(tmp_path / "clip.mkv", frames=5), tmp_path / "out.mkv"),
    ):
        code, err = invoke(
            ["swap", "--source", str(GRACE), "--target", str(target), "--output", str(output)],
            capsys,
        )
        assert code == 2, err
        assert "stage swapper: damaged source cache; nothing was written" in err
        assert not output.exists() and leftovers(tmp_path) == []


def test_a_target_without_a_face_is_copied_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "wall.png"
    cv2.imwrite(str(target), np.full((120, 160, 3), 128, np.uint8))
    output = tmp_path / "out.png"
    code, err = invoke(
        ["swap", "--source", str(GRACE), "--target", str(target), "--output", str(output)], capsys
    )
    assert code == 0
    assert "warning: no face found in the target; the output is the target unchanged" in err
    assert output.is_file()


# --- case 1: a full disk ----------------------------------------------------------------


def test_swap_onto_a_full_disk_fails_and_leaves_nothing(tmp_path: Path) -> None:
    """A real full disk: a 512 KB tmpfs. The issue's case reported "wrote 259 frames"
    (rc 0) for an unplayable file, and an image left `out.png.part`."""
    rng = np.random.default_rng(0)
    target = tmp_path / "noise.avi"  # noise: every output frame is large, 120 cannot fit
    writer = cv2.VideoWriter(str(target), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (320, 240))
    for _ in range(120):
        writer.write(rng.integers(0, 255, (240, 320, 3), np.uint8))
    writer.release()
    image = tmp_path / "noise.png"
    cv2.imwrite(str(image), rng.integers(0, 255, (700, 700, 3), np.uint8))  # ~1.5 MB
    for target_path, name in ((target, "out.avi"), (image, "out.png")):
        code, err, files = run_on_full_disk(
            lambda disk, t=target_path, n=name: [
                "swap", "--source", str(GRACE), "--target", str(t), "--output", str(disk / n),
            ],
            "512k",
            tmp_path / name,
        )  # fmt: skip
        assert code == 2, err
        assert "disk full" in err and "wrote" not in err
        assert files == {}, files  # neither the output nor a temporary


# --- case 3: signals during a swap ------------------------------------------------------------


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_a_signal_during_a_video_swap_leaves_no_output(
    tmp_path: Path, signum: int, code: int
) -> None:
    """The issue's cases: SIGTERM left an unplayable file under the output's name, Ctrl+C
    a playable 193-of-259-frame file that looked complete."""
    # A face in every frame: each one is really swapped (tens of ms), so the swap is
    # still running when the signal comes. (Grey frames without a face went through
    # so fast on a quiet machine that the swap had finished before the signal.)
    face = cv2.resize(read_image(GRACE), (320, 240), interpolation=cv2.INTER_AREA)
    target = tmp_path / "long.avi"
    writer = cv2.VideoWriter(str(target), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (320, 240))
    for _ in range(600):
        writer.write(face)
    writer.release()
    output = tmp_path / "out.mkv"
    process = start_fusecam(
        ["swap", "--source", str(GRACE), "--target", str(target), "--output", str(output)],
        tmp_path,
    )
    assert wait_for(growing_file(tmp_path, "out.*.part.mkv", 50_000)), process.stderr
    returncode, err, _ = signal_and_wait(process, signum)
    assert returncode == code, err
    assert "interrupted; " in err and "was not written" in err
    assert not output.exists() and leftovers(tmp_path) == []
