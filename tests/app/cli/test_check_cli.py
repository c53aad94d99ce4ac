"""`fusecam check`: exit 0 for a marked image, video or live stream, 1 for an unmarked
one, 2 for what cannot be read, 3 for an unmarked picture too small to decide — and
the activity log `fusecam swap` writes.

Real parts: the marked files are made by the watermark itself and by `fusecam swap`;
the stream is the real MJPEG server of a live session (a portrait as its input)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from app import activity
from app.cli.main import main
from engine.core.imageio import read_image
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.settings import EngineSettings, OutputSettings
from engine.outputs.video_file import VideoOutput
from engine.watermark.embed import Watermarker

GRACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"
EILEEN = SAMPLE_FACES_DIR / "astronaut_eileen_collins.png"


def check(target: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check", target])
    return code, capsys.readouterr().out


def test_a_marked_image_exits_0_with_the_payload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marked = tmp_path / "marked.jpg"
    cv2.imwrite(str(marked), Watermarker().mark(read_image(GRACE)), [cv2.IMWRITE_JPEG_QUALITY, 75])
    code, out = check(str(marked), capsys)
    assert code == 0, out
    assert "marked" in out and "payload: Fusecam v1" in out


def test_an_unmarked_image_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(str(GRACE), capsys)
    assert code == 1, out
    assert "not marked" in out


def test_a_small_marked_image_exits_0_and_an_unmarked_tiny_one_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = cv2.resize(read_image(GRACE), (144, 160), interpolation=cv2.INTER_AREA)
    marked = tmp_path / "small.jpg"
    cv2.imwrite(str(marked), Watermarker().mark(small), [cv2.IMWRITE_JPEG_QUALITY, 75])
    code, out = check(str(marked), capsys)
    assert code == 0, out
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), cv2.resize(small, (100, 110), interpolation=cv2.INTER_AREA))
    code, out = check(str(tiny), capsys)
    assert code == 3, out
    assert "too small to decide" in out


@pytest.mark.parametrize("content", [b"", b"not an image at all", None])
def test_what_cannot_be_read_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    path = tmp_path / ("broken.png" if content is not None else "missing.mp4")
    if content is not None:
        path.write_bytes(content)
    code, out = check(str(path), capsys)
    assert code == 2, out
    assert "cannot check" in out


def test_a_marked_video_exits_0_and_an_unmarked_one_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = cv2.resize(read_image(EILEEN), (640, 360))
    marker = Watermarker()
    for name, mark in (("marked.mp4", True), ("plain.mp4", False)):
        with VideoOutput(tmp_path / name, (640, 360), 30.0) as video:
            for i in range(12):
                frame = np.roll(picture, 3 * i, axis=1)
                video.write(marker.mark(frame) if mark else frame)
            video.commit()
    code, out = check(str(tmp_path / "marked.mp4"), capsys)
    assert code == 0, out
    # The recorder's own MPEG-4 encoder (engine.outputs.video_file): measured 11-12 of 12.
    assert re.search(r"marked in (1[0-2]) of 12 frames", out), out
    code, out = check(str(tmp_path / "plain.mp4"), capsys)
    assert code == 1, out


def test_the_live_stream_url_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.outputs.output_set import OutputConfig
    from engine.outputs.stream import StreamConfig
    from engine.runtime.pipeline import Engine
    from engine.runtime.session import LiveSession
    from engine.sources import ImageSource
    from tests.engine.stages.passthrough import PassThrough

    # Guard off: the camera frames themselves go out (labelled and marked, as any).
    settings = EngineSettings(output=OutputSettings(on_face_lost="off"))
    session = LiveSession(Engine([PassThrough()], settings), ImageSource(EILEEN))
    outputs = session.open_outputs(OutputConfig(stream=StreamConfig(port=0)))
    session.start()
    try:
        assert outputs.stream is not None
        time.sleep(0.5)
        code = main(["check", "--frames", "5", outputs.stream.url])
        out = capsys.readouterr().out
    finally:
        session.stop()
    assert code == 0, out
    assert "Fusecam v1" in out


def test_swap_appends_one_activity_line_and_clear_empties_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUSECAM_LOG_DIR", str(tmp_path / "log"))
    monkeypatch.setenv("FUSECAM_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "OUT.png"
    argv = ["swap", "--source", str(GRACE), "--target", str(EILEEN), "--output", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    log = tmp_path / "log" / activity.ACTIVITY_FILE
    lines = log.read_text().splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["command"] == "swap"
    assert entry["files"] == [str(out.resolve())]
    assert entry["label"] is True and entry["watermark"] is True
    [face] = entry["sources"]
    assert face["name"] and len(face["hash"]) == 32
    assert activity.read() == [entry]
    activity.clear()
    assert activity.read() == [] and log.read_text() == ""
