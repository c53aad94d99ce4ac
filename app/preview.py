"""The preview widget: the newest output frame, scaled to fit with its aspect ratio kept."""

from __future__ import annotations

import cv2
import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEvent
from PySide6.QtWidgets import QApplication, QWidget

from app.bridge import EngineBridge
from engine.session import Session
from engine.types import Frame


def to_qimage(frame: Frame) -> QImage:
    """BGR frame → RGB QImage (the one colour conversion, done at display)."""
    rgb = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
    h, w = rgb.shape[:2]
    image = QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888)
    return image.copy()  # detach from the numpy buffer


class PreviewWidget(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._image: QImage | None = None
        self.setMinimumSize(320, 180)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.frames_shown = 0

    def show_frame(self, frame: Frame) -> None:
        self._image = to_qimage(np.ascontiguousarray(frame))
        self.frames_shown += 1
        self.update()

    def image(self) -> QImage | None:
        return self._image

    def target_rect(self) -> QRectF:
        if self._image is None or self._image.width() == 0:
            return QRectF(self.rect())
        scale = min(self.width() / self._image.width(), self.height() / self._image.height())
        w, h = self._image.width() * scale, self._image.height() * scale
        return QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(18, 18, 20))
        if self._image is not None:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(self.target_rect(), self._image)
        painter.end()


def run_preview(session: Session) -> None:
    """A bare preview window for `fusecam run`; returns when the window closes."""
    app = QApplication.instance() or QApplication([])
    bridge = EngineBridge(session.engine)
    widget = PreviewWidget()
    widget.setWindowTitle("Fusecam preview")
    widget.resize(960, 540)

    def pull(_frame_id: int) -> None:
        bridge.acknowledge()
        _, packet = session.engine.output.read()
        if packet is not None:
            widget.show_frame(packet.result)

    bridge.frame_ready.connect(pull)
    widget.show()
    app.exec()
    bridge.detach()
