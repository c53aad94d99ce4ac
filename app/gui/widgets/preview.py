"""The preview widget: the newest output frame, scaled to fit with its aspect ratio kept.

Two tags may sit on the picture: a caption at the top (ORIGINAL, and how to leave it)
and a marker at the bottom for a frame the swap missed (RAW: the outputs did not get
it). The heads-up display sits in the corner the user dragged it to.
"""

from __future__ import annotations

import cv2
import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QWidget

from app.gui.i18n import tr
from app.gui.widgets.hud import HudOverlay
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
        self.placeholder = tr("waiting for frames…")
        self._caption = ""
        self._marker = ""
        self._overlay: HudOverlay | None = None
        self.setAccessibleName(tr("Preview"))

    def set_overlay(self, hud: HudOverlay) -> None:
        """The HUD, kept in its corner of the picture as the widget resizes."""
        hud.setParent(self)
        hud.installEventFilter(self)  # re-placed when it changes size
        hud.moved.connect(lambda _corner: self._place_overlay())
        self._overlay = hud
        self._place_overlay()

    def set_caption(self, text: str) -> None:
        """A short tag drawn at the top of the picture (e.g. ORIGINAL); "" hides it."""
        if text != self._caption:
            self._caption = text
            self.setAccessibleDescription(text)
            self.update()

    def set_marker(self, text: str) -> None:
        """A tag at the bottom of the picture for a frame the swap missed; "" hides it."""
        if text != self._marker:
            self._marker = text
            self.update()

    @property
    def marker(self) -> str:
        return self._marker

    def _place_overlay(self) -> None:
        """In its corner of the picture; in the side bar instead when the picture leaves
        one wide enough (a portrait input), so the card does not cover the picture."""
        hud = self._overlay
        if hud is None:
            return
        rect = self.target_rect()
        hud.fit_picture(rect.width(), rect.height())
        right = hud.corner.endswith("right")
        if right:
            bar = self.width() - rect.right()
            x = (
                self.width() - hud.width() - 10
                if bar >= hud.width() + 20
                else rect.right() - hud.width() - 10
            )
        else:
            x = 10 if rect.left() >= hud.width() + 20 else rect.left() + 10
        y = (
            rect.bottom() - hud.height() - 10
            if hud.corner.startswith("bottom")
            else rect.top() + 10
        )
        hud.move(QPoint(int(x), int(y)))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._overlay and event.type() == QEvent.Type.Resize:
            self._place_overlay()
        return super().eventFilter(watched, event)

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
        rect = self.target_rect()
        if self._caption:
            amber, dark = QColor(220, 150, 40, 230), QColor(20, 20, 20)
            self._paint_tag(painter, self._caption, rect.top() + 10, amber, dark)
        if self._marker:
            red, white = QColor(196, 70, 60, 230), QColor(255, 255, 255)
            self._paint_tag(painter, self._marker, rect.bottom() - 34, red, white)
        painter.end()

    def _paint_tag(
        self, painter: QPainter, text: str, top: float, colour: QColor, ink: QColor
    ) -> None:
        """A rounded tag centred on the picture, elided to fit it."""
        font = QFont(self.font())
        font.setBold(True)
        painter.setFont(font)
        rect = self.target_rect()
        metrics = painter.fontMetrics()
        shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(rect.width()) - 40)
        width = metrics.horizontalAdvance(shown) + 20
        box = QRectF(rect.center().x() - width / 2, top, width, 24)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(box, 6, 6)
        painter.setPen(ink)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, shown)
