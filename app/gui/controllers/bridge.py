"""Turns engine callbacks (engine thread) into Qt signals (GUI thread). Carries no pixels."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from engine.core.packet import FramePacket
from engine.runtime.pipeline import Engine


class EngineBridge(QObject):
    """`frame_ready` tells the GUI a new frame is in the engine's front buffer; the GUI
    pulls it itself, so a busy GUI skips frames instead of queueing them."""

    frame_ready = Signal(int)  # frame id
    error = Signal(str, str)  # where, message

    def __init__(self, engine: Engine, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self._pending = False
        engine.add_listener(self._on_frame)

    def _on_frame(self, packet: FramePacket) -> None:
        # Coalesce: at most one queued notification at a time.
        if not self._pending:
            self._pending = True
            self.frame_ready.emit(packet.frame_id)

    def acknowledge(self) -> None:
        """The GUI took the newest frame; the next publish may notify again."""
        self._pending = False

    def report_error(self, where: str, exc: BaseException) -> None:
        """Usable as an engine `on_error` callback from any thread."""
        self.error.emit(where, str(exc))

    def detach(self) -> None:
        self.engine.remove_listener(self._on_frame)
