"""The on-air indicators over the preview, in a real (offscreen) window with the real
outputs: each one-click toggle and its key switches the output, and the indicator, the
status bar and the HUD say what is on air. The virtual camera is a recording backend
(no driver can run in tests); the stream is read by a real HTTP client."""

from __future__ import annotations

import urllib.request
from pathlib import Path

from PySide6.QtCore import Qt

from app.gui.layout_state import DesktopState, GuiState


def _says(window, name: str, text: str) -> bool:  # type: ignore[no-untyped-def]
    return text in window.ui.on_air.buttons[name].text()


def test_each_indicator_toggles_its_output_and_shows_its_state(
    qtbot,
    make_window,
    wait_ready,
    fake_camera,
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(
        state=GuiState(
            desktop=DesktopState(notice_accepted=True), stream_port=0, record_dir=str(tmp_path)
        )
    )
    wait_ready(window)
    bar = window.ui.on_air
    assert bar.isVisible() and window.ui.splitter.isVisible()
    for name, key in (("virtual_camera", "V"), ("stream", "L"), ("record", "R")):
        assert bar.buttons[name].text().startswith(f"○ {key}  "), "the key is named"
        assert bar.buttons[name].text().endswith(": off")
    assert window.ui.on_air_label.text() == "on air: nothing"

    bar.buttons["virtual_camera"].click()
    qtbot.waitUntil(lambda: _says(window, "virtual_camera", "Virtual camera: on"), timeout=10000)
    assert window.outputs.is_on("virtual_camera") and bar.buttons["virtual_camera"].isChecked()
    assert bar.buttons["virtual_camera"].property("live") is True

    bar.buttons["stream"].click()
    qtbot.waitUntil(lambda: window.outputs.is_on("stream"), timeout=10000)
    server = window.outputs.outputs.stream
    assert server is not None
    address = f"http://127.0.0.1:{server.port}/"
    qtbot.waitUntil(lambda: _says(window, "stream", f"Stream: {address}"), timeout=3000)
    with urllib.request.urlopen(address, timeout=10) as reply:  # the address shown works
        assert reply.status == 200
    # The longer texts are shown whole (the strip sits in the menu bar's right end).
    qtbot.waitUntil(
        lambda: all(b.width() >= b.sizeHint().width() for b in bar.buttons.values()),
        timeout=3000,
    )
    assert bar.geometry().right() <= window.width()

    bar.buttons["record"].click()
    assert window.outputs.is_on("record")
    qtbot.waitUntil(lambda: _says(window, "record", "Recorder: 00:01"), timeout=10000)

    # The status bar and the HUD show the same three, with the address and the time.
    status = window.ui.on_air_label.text()
    assert status.startswith("on air: Virtual camera · Stream " + address)
    assert "Recorder 00:0" in status
    qtbot.waitUntil(lambda: "Recorder 00:0" in window.hud.data.on_air, timeout=3000)
    assert window.hud.data.live and address in window.hud.data.on_air
    window.hud.set_size_mode("compact")
    assert window.hud._lines()[1] == window.hud.data.on_air  # kept in the small card too

    for name in ("virtual_camera", "stream"):
        bar.buttons[name].click()
        qtbot.waitUntil(lambda n=name: _says(window, n, ": off"), timeout=10000)
        assert not window.outputs.is_on(name)
    bar.buttons["record"].click()
    qtbot.waitUntil(lambda: _says(window, "record", "Recorder: off"), timeout=30000)
    assert list(tmp_path.glob("fusecam-*.mp4"))
    qtbot.waitUntil(lambda: window.ui.on_air_label.text() == "on air: nothing", timeout=3000)


def test_the_keys_named_on_the_indicators_switch_them(
    qtbot,
    make_window,
    wait_ready,
    fake_camera,
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(state=GuiState(desktop=DesktopState(notice_accepted=True), stream_port=0))
    wait_ready(window)
    window.activateWindow()
    qtbot.keyClick(window.preview, Qt.Key.Key_L)
    qtbot.waitUntil(lambda: _says(window, "stream", "Stream: http://127.0.0.1:"), timeout=10000)
    qtbot.keyClick(window.preview, Qt.Key.Key_V)
    qtbot.waitUntil(lambda: _says(window, "virtual_camera", ": on"), timeout=10000)
    qtbot.keyClick(window.preview, Qt.Key.Key_L)
    qtbot.waitUntil(lambda: _says(window, "stream", "Stream: off"), timeout=10000)
