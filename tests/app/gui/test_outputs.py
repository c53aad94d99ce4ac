"""Output toggles with the real sinks: recorder file, HTTP stream, virtual camera errors."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import cv2
import pytest
import pyvirtualcam
import pyvirtualcam.camera

from app.gui import layout_state
from app.gui.layout_state import DesktopState, GuiState
from engine.persist import settings_store


def test_record_toggle_writes_a_video(qtbot, make_window, wait_ready, tmp_path: Path) -> None:
    window = make_window(
        state=GuiState(desktop=DesktopState(notice_accepted=True), record_dir=str(tmp_path))
    )
    wait_ready(window)
    button = window.outputs_panel.buttons["record"]
    button.click()
    assert button.isChecked() and window.outputs.is_on("record")
    recorder = window.outputs.outputs.recorder
    assert recorder is not None
    qtbot.waitUntil(lambda: recorder.written >= 10, timeout=20000)
    qtbot.waitUntil(lambda: "frames" in window.outputs_panel.status["record"].text(), timeout=3000)
    button.click()
    assert not window.outputs.is_on("record")
    # Finished and checked on the io thread, then announced.
    qtbot.waitUntil(lambda: any("Recorded" in t for t in window.messages.texts()), timeout=20000)
    assert not recorder.alive and recorder.finished
    (video,) = tmp_path.glob("fusecam-*.mp4")
    cap = cv2.VideoCapture(str(video))
    count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, frame = cap.read()
    cap.release()
    assert ok and frame.shape[:2] == (180, 320) and count >= 10


def test_stream_toggle_serves_the_output(qtbot, make_window, wait_ready) -> None:
    window = make_window(state=GuiState(desktop=DesktopState(notice_accepted=True), stream_port=0))
    wait_ready(window)
    window.commands.toggle_stream()
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
    window.commands.toggle_stream()  # stopped on the io thread: the window never waits for it
    qtbot.waitUntil(lambda: not window.outputs.is_on("stream") and not server.alive)


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


def test_the_virtual_camera_device_chosen_is_opened(
    qtbot, make_window, wait_ready, fake_camera
) -> None:  # type: ignore[no-untyped-def]
    window = make_window()
    wait_ready(window)
    window.outputs_panel.vcam_device.setEditText("fusecam-test-cam")
    window.commands.toggle_virtual_camera()
    qtbot.waitUntil(lambda: window.outputs.is_on("virtual_camera"), timeout=10000)
    assert fake_camera[-1]["device"] == "fusecam-test-cam"
    qtbot.waitUntil(lambda: len(fake_camera[-1]["frames"]) > 3, timeout=10000)
    assert window.keeper.current_state().vcam_device == "fusecam-test-cam"


def test_the_lan_stream_needs_its_token(qtbot, make_window, wait_ready) -> None:
    window = make_window(
        state=GuiState(desktop=DesktopState(notice_accepted=True), stream_port=0, stream_lan=True)
    )
    wait_ready(window)
    token = window.outputs.stream_token
    assert window.outputs_panel.lan.isChecked() and window.outputs_panel.token.text() == token
    window.commands.toggle_stream()
    qtbot.waitUntil(lambda: window.outputs.is_on("stream"), timeout=10000)
    server = window.outputs.outputs.stream
    assert server is not None and server.config.host == "0.0.0.0" and server.config.exposed
    plain = f"http://127.0.0.1:{server.port}/snapshot.jpg"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(plain, timeout=10)  # a real client without the token
    assert refused.value.code == 401
    with urllib.request.urlopen(f"{plain}?token={token}", timeout=10) as reply:
        assert reply.read()[:2] == b"\xff\xd8"
    qtbot.waitUntil(lambda: f"token={token}" in window.outputs_panel.status["stream"].text())
    # A new token is kept for the next start; the one in use still works until then.
    window.outputs_panel.new_token.click()
    assert window.outputs.stream_token != token
    assert window.keeper.current_state().stream_token == window.outputs.stream_token
    window.commands.toggle_stream()


def test_side_by_side_recording_from_the_window(
    qtbot, make_window, wait_ready, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(
        state=GuiState(desktop=DesktopState(notice_accepted=True), record_dir=str(tmp_path))
    )
    wait_ready(window)
    window.outputs_panel.side_by_side.setChecked(True)
    window.commands.toggle_recording()
    recorder = window.outputs.outputs.recorder
    assert recorder is not None and recorder.side_by_side
    qtbot.waitUntil(lambda: recorder.written >= 5, timeout=20000)
    window.commands.toggle_recording()

    # The recording is checked and renamed off the GUI thread: until then only its
    # temporary file ("….recording.mp4") is there.
    def finished() -> list[Path]:
        return [p for p in tmp_path.glob("fusecam-*.mp4") if ".recording." not in p.name]

    qtbot.waitUntil(lambda: bool(finished()), timeout=20000)
    (video,) = finished()
    cap = cv2.VideoCapture(str(video))
    ok, frame = cap.read()
    cap.release()
    assert ok and frame.shape[:2] == (180, 640)  # the camera image | the output
    assert window.keeper.current_state().record_side_by_side


def test_outputs_that_were_on_come_back_on(qtbot, make_window, wait_ready, fake_camera) -> None:  # type: ignore[no-untyped-def]
    first = make_window(state=GuiState(desktop=DesktopState(notice_accepted=True), stream_port=0))
    wait_ready(first)
    first.commands.toggle_stream()
    first.commands.toggle_virtual_camera()
    qtbot.waitUntil(
        lambda: first.outputs.is_on("stream") and first.outputs.is_on("virtual_camera"),
        timeout=10000,
    )
    first.close()
    state = layout_state.load().state
    assert set(state.outputs_on) == {"stream", "virtual_camera"}
    second = make_window(state=state)
    buttons = second.outputs_panel.buttons
    qtbot.waitUntil(
        lambda: all(buttons[n].isChecked() and buttons[n].isEnabled() for n in state.outputs_on),
        timeout=10000,
    )
    assert second.outputs.is_on("stream") and second.outputs.is_on("virtual_camera")
    # Switched off, it stays off at the next start; a recording never restarts itself.
    second.commands.toggle_stream()
    second.close()
    assert settings_store.load().state.outputs_on == ("virtual_camera",)
