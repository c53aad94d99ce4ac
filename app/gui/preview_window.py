"""The bare preview window of `fusecam run` (no controls): the newest output, live."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.gui.controllers.bridge import EngineBridge
from app.gui.guard_text import raw_marker
from app.gui.i18n import tr
from app.gui.qt_compat import guard_none_refcount
from app.gui.widgets.preview import PreviewWidget
from engine.runtime.session import LiveSession


def run_preview(session: LiveSession, should_stop: Callable[[], bool]) -> None:
    """A bare preview window for `fusecam run`; returns when the window closes or
    `should_stop()` turns true (polled, as Qt's loop never runs Python signal handlers
    by itself)."""
    app = QApplication.instance() or QApplication([])
    guard_none_refcount()
    bridge = EngineBridge(session.engine)
    widget = PreviewWidget()
    widget.setWindowTitle(tr("Fusecam preview"))
    widget.resize(960, 540)

    def pull(_frame_id: int) -> None:
        bridge.acknowledge()
        _, packet = session.engine.published.read()
        if packet is not None:
            widget.show_frame(packet.result)
            widget.set_marker(raw_marker(packet.check, session.engine.settings.output))

    bridge.frame_ready.connect(pull)
    poll = QTimer()
    poll.timeout.connect(lambda: app.quit() if should_stop() else None)
    poll.start(50)
    widget.show()
    app.exec()
    poll.stop()
    bridge.detach()
