"""`fusecam run` output flags: stream, virtual camera, recording, delay."""

from __future__ import annotations

import glob
import os
import platform
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import pyvirtualcam
from pyvirtualcam.camera import BACKENDS
from pyvirtualcam.util import decode_fourcc

from app.cli.main import main

DEMO = ["run", "--demo", "--size", "160x120", "--no-preview"]


def _stream_url(
    proc: subprocess.Popen[str], lines: queue.Queue[str], seen: list[str]
) -> str | None:
    """The stream URL `fusecam run` announces on stderr (within a minute), lines kept."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        seen.append(line)
        match = re.search(r"\(MJPEG\): (http://127\.0\.0\.1:\d+/stream\.mjpg)", line)
        if match:
            return match.group(1)
    return None


@pytest.mark.skipif(os.name != "posix", reason="stops the run with SIGINT (Ctrl-C)")
def test_stream_record_and_delay_in_a_real_run(repo_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.mkv"
    command = [
        sys.executable,
        "-m",
        "app.cli",
        *DEMO,
        "--stream",
        "127.0.0.1:0",
        "--record",
        str(out),
        "--record-side-by-side",
        "--delay-ms",
        "100",
    ]
    proc = subprocess.Popen(command, cwd=repo_root, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)

    pumping = threading.Thread(target=pump, daemon=True)
    pumping.start()
    try:
        url = _stream_url(proc, lines, seen)
        assert url is not None, "".join(seen)
        with urllib.request.urlopen(url.replace("stream.mjpg", "snapshot.jpg"), timeout=10) as r:
            snapshot = cv2.imdecode(np.frombuffer(r.read(), np.uint8), cv2.IMREAD_COLOR)
        assert snapshot is not None and snapshot.shape == (120, 160, 3)
        capture = cv2.VideoCapture(url, cv2.CAP_FFMPEG)
        try:
            frames = [capture.read() for _ in range(5)]
        finally:
            capture.release()
        assert all(ok and frame.shape == (120, 160, 3) for ok, frame in frames)
        proc.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    pumping.join(10)  # the process has exited: its stderr ends, and so does the pump
    assert not pumping.is_alive()
    while not lines.empty():
        seen.append(lines.get())
    text = "".join(seen)
    assert "each frame 100 ms after capture" in text
    assert "(input and output side by side)" in text
    written = int(re.search(r"recorded (\d+) frames", text).group(1))  # type: ignore[union-attr]
    capture = cv2.VideoCapture(str(out))
    try:
        ok, frame = capture.read()
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    finally:
        capture.release()
    assert ok and frame.shape == (120, 320, 3)  # input | output
    assert count == written > 0


@pytest.fixture
def fake_camera() -> Iterator[tuple[str, list[np.ndarray], list[dict[str, Any]]]]:
    """A pyvirtualcam backend recording frames (no real driver can run in tests)."""
    frames: list[np.ndarray] = []
    opened: list[dict[str, Any]] = []

    class Backend:
        def __init__(
            self, *, width: int, height: int, fps: float, fourcc: int, device: str | None, **kw: Any
        ) -> None:
            self.shape = (height, width, 3)
            self._device = device or "fake0"
            opened.append({"size": (width, height), "fps": fps, "fmt": decode_fourcc(fourcc)})

        def send(self, frame: np.ndarray) -> None:
            frames.append(frame.reshape(self.shape).copy())

        def close(self) -> None:
            pass

        def device(self) -> str:
            return self._device

        def native_fourcc(self) -> None:
            return None

    name = f"fusecam-cli-{id(frames)}"
    pyvirtualcam.register_backend(name, Backend)
    try:
        yield name, frames, opened
    finally:
        BACKENDS.pop(name, None)


def test_virtual_cam_flags_reach_the_backend(
    fake_camera: tuple[str, list[np.ndarray], list[dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    name, frames, opened = fake_camera
    code = main(
        [
            *DEMO,
            "--frames",
            "20",
            "--virtual-cam",
            "cam9",
            "--vcam-backend",
            name,
            "--vcam-size",
            "128x96",
            "--vcam-fps",
            "25",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"virtual camera: {name} cam9 128x96 @ 25 fps (BGR)" in err
    assert opened == [{"size": (128, 96), "fps": 25.0, "fmt": "24BG"}]
    assert frames and all(frame.shape == (96, 128, 3) for frame in frames)
    assert re.search(rf"sent {len(frames)} frames to the virtual camera", err)


@pytest.mark.skipif(platform.system() != "Linux", reason="the v4l2loopback backend is Linux's")
def test_missing_v4l2loopback_prints_setup(capsys: pytest.CaptureFixture[str]) -> None:
    if glob.glob("/dev/video*"):
        pytest.skip("video devices exist here; the no-driver case cannot be shown")
    assert main([*DEMO, "--frames", "5", "--virtual-cam"]) == 2
    err = capsys.readouterr().err
    assert err.count("fusecam: error: cannot open a virtual camera") == 1
    assert "sudo modprobe v4l2loopback" in err and "exclusive_caps=1" in err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--stream", "0.0.0.0:0"], "needs an access token: add --token"),
        (["--token", "abcdefgh12"], "--token needs --stream"),
        (["--vcam-size", "640x480"], "need --virtual-cam"),
        (["--record-side-by-side"], "--record-side-by-side needs --record"),
        (["--stream", "127.0.0.1:0", "--token", "short"], "8-128 characters"),
    ],
)
def test_option_mistakes_are_one_clear_line(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*DEMO, "--frames", "5", *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "flags",
    [
        ["--delay-ms", "1001"],
        ["--delay-ms", "-5"],
        ["--stream", "nope"],
        ["--vcam-fps", "0"],
        ["--jpeg-quality", "0"],
    ],
)
def test_bad_values_are_usage_errors(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main([*DEMO, *flags])
    assert caught.value.code == 2
    assert flags[0] in capsys.readouterr().err


def test_taken_port_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main([*DEMO, "--frames", "5", "--stream", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
