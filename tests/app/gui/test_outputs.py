"""Output toggles with the real sinks: recorder file, HTTP stream, virtual camera errors."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import cv2
import pytest
import pyvirtualcam.camera

from engine.runtime.settings_store import AppState


def test_record_toggle_writes_a_video(qtbot, make_window, wait_ready, tmp_path: Path) -> None:
    window = make_window(state=AppState(notice_accepted=True, record_dir=str(tmp_path)))
    wait_ready(window)
    button = window.outputs_panel.buttons["record"]
    button.click()
    assert button.isChecked() and window.outputs.is_on("record")
    recorder = window.outputs.outputs.recorder
    assert recorder is not None
    qtbot.waitUntil(lambda: recorder.written >= 10, timeout=20000)
    qtbot.waitUntil(lambda: "frames" in window.outputs_panel.status["record"].text(), timeout=3000)
    button.click()
    assert not window.outputs.is_on("record") and not recorder.alive
    (video,) = tmp_path.glob("fusecam-*.mp4")
    cap = cv2.VideoCapture(str(video))
    count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, frame = cap.read()
    cap.release()
    assert ok and frame.shape[:2] == (180, 320) and count >= 10
    assert any("Recorded" in t for t in window.messages.texts())


def test_stream_toggle_serves_the_output(qtbot, make_window, wait_ready) -> None:
    window = make_window(state=AppState(notice_accepted=True, stream_port=0))
    wait_ready(window)
    window.toggle_stream()
    qtbot.waitUntil(lambda: window.outputs.is_on("stream"), timeout=10000)
    server = window.outputs.outputs.stream
    assert server is not None
    url = server.snapshot_url
    assert url.startswith("http://127.0.0.1:")
    qtbot.waitUntil(
        lambda: (
            url.replace("snapshot.jpg", "stream.mjpg")
            in window.outputs_panel.status["stream"].text()
        ),
        timeout=3000,
    )
    with urllib.request.urlopen(url, timeout=10) as reply:  # a real client over loopback
        body = reply.read()
    assert body[:2] == b"\xff\xd8", "not a JPEG"
    window.toggle_stream()
    assert not window.outputs.is_on("stream") and not server.alive


def test_missing_virtual_camera_driver_is_a_message(qtbot, make_window, wait_ready) -> None:
    # The test machine has no v4l2loopback device; this is the real failure users meet.
    if pyvirtualcam.camera.BACKENDS and Path("/dev/video10").exists():
        pytest.skip("a virtual camera device exists here: the missing-driver path can't run")
    window = make_window()
    wait_ready(window)
    button = window.outputs_panel.buttons["virtual_camera"]
    button.click()
    qtbot.waitUntil(
        lambda: any("virtual camera" in t for t in window.messages.texts()), timeout=10000
    )
    assert not button.isChecked() and not window.outputs.is_on("virtual_camera")
    text = next(t for t in window.messages.texts() if "virtual camera" in t)
    assert "v4l2loopback" in text  # the install steps for this OS
    shown = window.preview.frames_shown
    qtbot.waitUntil(lambda: window.preview.frames_shown > shown + 2, timeout=10000)
