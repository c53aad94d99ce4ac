"""Fixes seen in screenshots: map mode with nothing mapped, the original view's hint,
the input's real size, a missing camera, and the preview's RAW tag."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from engine.sources import CameraSource, VideoFileSource


def test_map_mode_keeps_the_face_in_use_and_lights_only_mapped_faces(
    qtbot, make_window, wait_ready
) -> None:
    window = make_window()
    wait_ready(window)
    first, second = window.gallery_panel.tiles()
    engine = window.core.engine
    assert engine.settings.swap.source_key == first.key
    window.core.apply("swap.face_selection", "map")
    # Switching to map mode maps the face in use, so the swap goes on.
    assert engine.settings.swap.source_keys == (first.key,)
    assert first.property("active") and not second.property("active")
    assert "Left → right: Grace hopper" in window.controls.mapping_label.text()
    # Unmapping it (Ctrl+click) leaves nothing mapped: no tile may look in use.
    window.faces.activate(first.key, add_to_mapping=True)
    assert engine.settings.swap.source_keys == ()
    assert not any(t.property("active") for t in window.gallery_panel.tiles())
    assert "Nothing mapped" in window.controls.mapping_label.text()
    # ...and the preview says the frames it shows are not swapped.
    qtbot.waitUntil(lambda: "no source face" in window.preview.marker, timeout=10000)
    assert window.preview.marker.startswith("RAW")


def _space(window, kind: QEvent.Type) -> None:
    event = QKeyEvent(kind, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, " ")
    QApplication.sendEvent(window.preview, event)


def test_the_original_view_says_how_to_leave_it(make_window) -> None:
    window = make_window()
    window.commands.toggle_original()  # O
    assert window.original.showing
    assert "press O" in window.preview._caption and "Space" not in window.preview._caption
    window.commands.toggle_original()
    assert not window.original.showing and window.preview._caption == ""
    _space(window, QEvent.Type.KeyPress)
    assert "release Space" in window.preview._caption
    _space(window, QEvent.Type.KeyRelease)
    assert window.preview._caption == ""
    assert all("release Space" not in line for line in window.hud.data.lines())


def test_a_video_input_shows_its_own_size_everywhere(qtbot, make_window, make_video) -> None:
    clip = make_video(frames=30, fps=24.0, size=(320, 180), name="clip.mkv")
    window = make_window(source=VideoFileSource(clip, loop=True))
    qtbot.waitUntil(lambda: window.preview.frames_shown > 1, timeout=10000)
    resolution, fps = window.controls.resolution_combo, window.controls.fps_combo
    assert resolution.currentText() == "320×180" and not resolution.isEnabled()
    assert fps.currentText() == "24 fps" and not fps.isEnabled()
    assert "320×180" in window.source_label.text()
    # Back to a camera-like source: its sizes are offered again.
    window.controls.picker._on_input_picked(0)  # the demo entry
    assert resolution.isEnabled() and resolution.count() == 3


def test_a_missing_camera_opens_the_demo_with_a_message(qtbot, make_window) -> None:
    # There is no camera 7 here (nor any camera): `fusecam --camera 7` must still open.
    window = make_window(source=CameraSource(7))
    qtbot.waitUntil(lambda: window.preview.frames_shown > 1, timeout=10000)
    assert window.core.session.source.kind == "demo"
    text = next(t for t in window.messages.texts() if "showing the demo" in t)
    assert "camera 7" in text.lower() and "Pick a camera" in text
    assert window.controls.input_combo.currentText().startswith("Demo")


def test_the_app_with_a_missing_camera_does_not_exit(tmp_path: Path) -> None:
    """The reported bug, end to end: `fusecam --camera N` with no camera exited."""
    out = tmp_path / "shot.png"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["FUSECAM_CONFIG_DIR"] = str(tmp_path / "config")
    command = [sys.executable, "-m", "app.cli", "--camera", "7", "--screenshot", str(out)]
    result = subprocess.run(
        [*command, "--quit-after-ms", "300"],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert out.is_file()


def test_the_preview_marks_frames_the_outputs_did_not_get(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    qtbot.waitUntil(lambda: window.preview.marker == "", timeout=10000)  # swapped
    window.commands.toggle_swap()  # S
    qtbot.waitUntil(lambda: "face swap is off" in window.preview.marker, timeout=10000)
    assert "the outputs show blurred" in window.preview.marker
    window.core.apply("output.on_face_lost", "off")
    qtbot.waitUntil(lambda: "SENT TO THE OUTPUTS" in window.preview.marker, timeout=10000)
    window.commands.toggle_swap()
    qtbot.waitUntil(lambda: window.preview.marker == "", timeout=10000)
