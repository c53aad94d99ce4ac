"""Source gallery widgets: one tile per face, in a horizontal strip under the preview.

A tile shows the face's live mini-preview (the camera frame swapped with that face) once
the background renderer has one, its static thumbnail before that, and why it failed when
the face could not be loaded. Logic (loading, persistence, activation) lives in
`gallery_controller`; these widgets only display and report clicks.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QHideEvent,
    QMouseEvent,
    QPixmap,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.widgets.preview import to_qimage
from engine.core.types import Frame

TILE_IMAGE_PX = 128
TILE_W = TILE_IMAGE_PX + 16


def display_name(name: str) -> str:
    """File stems read better with spaces: "grace_hopper" → "Grace hopper"."""
    text = name.replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


class FaceTile(QFrame):
    clicked = Signal(int, bool)  # entry id, Ctrl held (add to the left→right mapping)
    remove_requested = Signal(int)

    def __init__(self, entry_id: int, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry_id = entry_id
        self.key: str | None = None
        self.state = "loading"
        self.previews_shown = 0
        self.setObjectName("faceTile")
        self.setProperty("active", False)
        self.setProperty("state", "loading")
        self.setFixedWidth(TILE_W)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(3)
        self.image = QLabel()
        self.image.setObjectName("tileImage")
        self.image.setFixedSize(QSize(TILE_IMAGE_PX, TILE_IMAGE_PX))
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setText("loading…")
        self.image.setWordWrap(True)
        self.name = QLabel()
        self.name.setObjectName("tileName")
        self.name.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status = QLabel("")
        self.status.setObjectName("tileStatus")
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status.hide()
        self._set_name(name)
        layout.addWidget(self.image)
        layout.addWidget(self.name)
        layout.addWidget(self.status)
        self.badge = QLabel("", self.image)
        self.badge.setObjectName("tileBadge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setGeometry(QRect(3, 3, 20, 18))
        self.badge.hide()
        self.remove_button = QToolButton(self.image)
        self.remove_button.setObjectName("tileRemove")
        self.remove_button.setText("✕")
        self.remove_button.setToolTip("Remove this face from the gallery")
        self.remove_button.setGeometry(QRect(TILE_IMAGE_PX - 21, 3, 18, 18))
        self.remove_button.clicked.connect(lambda: self.remove_requested.emit(self.entry_id))

    def _set_name(self, name: str) -> None:
        pretty = display_name(name)
        metrics = self.name.fontMetrics()
        self.name.setText(metrics.elidedText(pretty, Qt.TextElideMode.ElideRight, TILE_IMAGE_PX))
        self.name.setToolTip(pretty)

    def _set_state(self, state: str) -> None:
        self.state = state
        self.setProperty("state", state)
        self._restyle()

    def _restyle(self) -> None:
        self.style().unpolish(self)
        self.style().polish(self)

    def _show_image(self, frame: Frame) -> None:
        image = to_qimage(np.ascontiguousarray(frame))
        pixmap = QPixmap.fromImage(image).scaled(
            self.image.size(),
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        self.image.setPixmap(pixmap)

    def set_ready(self, key: str, name: str, thumbnail: Frame, warning: str | None) -> None:
        self.key = key
        self._set_name(name)
        self._show_image(thumbnail)
        self.status.setVisible(bool(warning))
        self.status.setText(warning or "")
        self.setToolTip(f"{name}\n{warning}" if warning else name)
        self._set_state("ready")

    def set_failed(self, reason: str, detail: str) -> None:
        self.key = None
        self.image.clear()
        self.image.setText(reason)
        self.status.setText("not loaded")
        self.status.show()
        self.setToolTip(detail)
        self._set_state("failed")

    def set_preview(self, frame: Frame) -> None:
        """A new live mini-preview (camera frame swapped with this face)."""
        if self.state == "ready":
            self._show_image(frame)
            self.previews_shown += 1

    def set_active(self, active: bool) -> None:
        if self.property("active") != active:
            self.setProperty("active", active)
            self._restyle()

    def set_badge(self, text: str) -> None:
        self.badge.setText(text)
        self.badge.adjustSize()
        self.badge.resize(max(20, self.badge.width() + 6), 18)
        self.badge.setVisible(bool(text))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            self.clicked.emit(self.entry_id, ctrl)
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        menu.addAction("Use this face", lambda: self.clicked.emit(self.entry_id, False))
        menu.addAction(
            "Add to left → right mapping", lambda: self.clicked.emit(self.entry_id, True)
        )
        menu.addSeparator()
        menu.addAction("Remove", lambda: self.remove_requested.emit(self.entry_id))
        menu.popup(event.globalPos())


class GalleryPanel(QWidget):
    """Header with an Add button over a horizontally scrolling strip of tiles."""

    add_clicked = Signal()
    visible_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gallery")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 4, 8, 4)
        outer.setSpacing(4)
        header = QHBoxLayout()
        title = QLabel("Faces")
        title.setObjectName("sectionTitle")
        hint = QLabel("click or press 1–9 to use · drop photos or folders here")
        hint.setObjectName("hint")
        self.add_button = QPushButton("+ Add faces…")
        self.add_button.setToolTip("Add face photos (Ctrl+O)")
        self.add_button.clicked.connect(self.add_clicked)
        header.addWidget(title)
        header.addWidget(hint, 1)
        header.addWidget(self.add_button)
        outer.addLayout(header)
        self.scroller = QScrollArea()
        self.scroller.setObjectName("galleryScroll")
        self.scroller.setWidgetResizable(True)
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroller.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.strip = QWidget()
        self.strip.setObjectName("galleryStrip")
        self._row = QHBoxLayout(self.strip)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(8)
        self._row.addStretch(1)
        self.scroller.setWidget(self.strip)
        outer.addWidget(self.scroller)
        self.scroller.horizontalScrollBar().valueChanged.connect(
            lambda _v: self.visible_changed.emit()
        )
        self._tiles: dict[int, FaceTile] = {}

    def add_tile(self, entry_id: int, name: str) -> FaceTile:
        tile = FaceTile(entry_id, name, self.strip)
        self._tiles[entry_id] = tile
        self._row.insertWidget(self._row.count() - 1, tile)
        self.visible_changed.emit()
        return tile

    def remove_tile(self, entry_id: int) -> None:
        tile = self._tiles.pop(entry_id, None)
        if tile is not None:
            self._row.removeWidget(tile)
            tile.deleteLater()
            self.visible_changed.emit()

    def tile(self, entry_id: int) -> FaceTile | None:
        return self._tiles.get(entry_id)

    def tiles(self) -> list[FaceTile]:
        """In display order."""
        found = []
        for i in range(self._row.count()):
            item = self._row.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, FaceTile):
                found.append(widget)
        return found

    def visible_tiles(self) -> list[FaceTile]:
        """Tiles at least partly inside the scrolled viewport (the ones worth rendering)."""
        if not self.isVisible():
            return []
        viewport = self.scroller.viewport()
        visible = []
        for tile in self.tiles():
            top_left = tile.mapTo(viewport, tile.rect().topLeft())
            if QRect(top_left, tile.size()).intersects(viewport.rect()):
                visible.append(tile)
        return visible

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.visible_changed.emit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.visible_changed.emit()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.visible_changed.emit()
