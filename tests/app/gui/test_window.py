"""The main window with a real engine: preview, HUD, original view, shutdown."""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from app.gui.widgets.preview import to_qimage
from engine.core.paths import DEMO_PORTRAIT
from engine.sources import ImageSource


def test_window_opens_and_preview_updates(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    shown = window.preview.frames_shown
    qtbot.waitUntil(lambda: window.preview.frames_shown > shown + 3, timeout=10000)
    image = window.preview.image()
    assert image is not None and (image.width(), image.height()) == (320, 180)

    # The HUD is fed from the engine's stats (its next tick after the stages were built;
    # the stages show while their face models load, "faces loading", then the
    # providers the models run on).
    def names() -> list[str]:
        return [s.name for s in window.hud.data.stages]

    def hud_ready() -> bool:
        data = window.hud.data
        return data.fps > 0 and "faces" in names() and bool(data.providers)

    qtbot.waitUntil(hud_ready, timeout=5000)  # the execution provider in use must be shown
    assert "compositor" in names()
    assert "provider:" in window.provider_label.text()


def _space(window, kind: QEvent.Type) -> None:
    event = QKeyEvent(kind, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, " ")
    QApplication.sendEvent(window.preview, event)


def test_holding_space_shows_the_original(qtbot, make_window, wait_ready) -> None:
    # A still image: every captured frame is identical, so only the swap changes pixels.
    window = make_window(source=ImageSource(DEMO_PORTRAIT, size=(360, 480)))
    wait_ready(window)
    qtbot.waitUntil(lambda: window.core.engine.settings.swap.source_key is not None)
    # Wait for a frame the swap changed (frames before the stages were built pass through).
    qtbot.waitUntil(lambda: len(window.core.engine.published.read()[1].faces) > 0, timeout=10000)
    _, packet = window.core.engine.published.read()
    assert not np.array_equal(packet.result, packet.frame), "the swap changed nothing"

    def shown_equals(frame: np.ndarray) -> bool:
        return window.preview.image() == to_qimage(np.ascontiguousarray(frame))

    _space(window, QEvent.Type.KeyPress)
    assert window.original.showing
    qtbot.waitUntil(lambda: shown_equals(window.core.engine.published.read()[1].frame))
    _space(window, QEvent.Type.KeyRelease)
    assert not window.original.showing
    qtbot.waitUntil(lambda: shown_equals(window.core.engine.published.read()[1].result))


def test_closing_stops_every_thread(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    window.outputs.set_on("record", True)
    workers = window.core.threads()  # the session's (outputs and previews too), the jobs'
    assert window.renderer in workers
    assert len(window.core.session.outputs.workers()) == 2  # delay line + recorder
    assert all(w.alive for w in workers if w.name != "app-io")
    window.close()
    still = [w.name for w in workers if w.alive]
    assert still == [], f"threads still running after close: {still}"
    names = {t.name for t in threading.enumerate()}
    assert not names & {"engine", "source-demo", "gallery-previews", "app-faces", "app-io"}
