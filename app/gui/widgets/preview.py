"""The preview widget: the newest output frame, scaled to fit with its aspect ratio kept."""

from __future__ import annotations

import cv2
import numpy as np
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QWidget

from engine.core.types import Frame


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
        self.placeholder = "waiting for frames…"
        self._caption = ""
        self._overlay: QWidget | None = None

    def set_overlay(self, widget: QWidget) -> None:
        """A child (the HUD) kept in the image's top-left corner as the widget resizes."""
        widget.setParent(self)
        self._overlay = widget
        self._place_overlay()

    def set_caption(self, text: str) -> None:
        """A short tag drawn in the top-right corner (e.g. ORIGINAL); "" hides it."""
        if text != self._caption:
            self._caption = text
            self.update()

    def _place_overlay(self) -> None:
        """In the image's corner; in the side bar instead when the image leaves one wide
        enough (a portrait input), so the overlay does not cover the picture."""
        if self._overlay is not None:
            rect = self.target_rect()
            x = 10 if rect.left() >= self._overlay.width() + 20 else int(rect.left()) + 10
            self._overlay.move(QPoint(x, int(rect.top()) + 10))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_overlay()

    def show_frame(self, frame: Frame) -> None:
        first = self._image is None or (self._image.width(), self._image.height()) != (
            frame.shape[1],
            frame.shape[0],
        )
        self._image = to_qimage(np.ascontiguousarray(frame))
        self.frames_shown += 1
        if first:
            self._place_overlay()
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
        elif self.placeholder:
            painter.setPen(QColor(150, 154, 160))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.placeholder)
        if self._caption:
            self._paint_caption(painter)
        painter.end()

    def _paint_caption(self, painter: QPainter) -> None:
        font = QFont(self.font())
        font.setBold(True)
        painter.setFont(font)
        rect = self.target_rect()
        width = painter.fontMetrics().horizontalAdvance(self._caption) + 20
        box = QRectF(rect.right() - width - 10, rect.top() + 10, width, 24)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(220, 150, 40, 220))
        painter.drawRoundedRect(box, 6, 6)
        painter.setPen(QColor(20, 20, 20))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self._caption)
