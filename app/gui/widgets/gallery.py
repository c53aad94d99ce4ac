"""Source gallery widgets: one tile per face, in a horizontal strip under the preview.

A tile shows the source photo — who this face is — with the live mini-preview (the
camera frame swapped with that face) in its corner once the background renderer has
one; hovering the tile swaps the two, so the preview can be seen large. A face that
could not be loaded says why. Names wrap onto two lines instead of being cut. Tiles
shrink with the strip's height (the window's splitter) and take keyboard focus: Enter
uses the face. Logic (loading, persistence, activation) lives in `gallery_controller`;
these widgets only display and report clicks.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QEnterEvent,
    QHideEvent,
    QKeyEvent,
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

from app.gui.i18n import tr
from app.gui.widgets.preview import to_qimage
from engine.core.types import Frame

TILE_IMAGE_PX = 128  # the largest tile picture
MIN_TILE_IMAGE_PX = 64
NAME_LINES_PX = 34  # two lines of the tile's name
INSET = 0.42  # the live preview's share of the tile picture


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
        self.display_name = display_name(name)
        self._photo: Frame | None = None
        self._live: Frame | None = None
        self._hovered = False
        self._px = TILE_IMAGE_PX
        self.setObjectName("faceTile")
        self.setProperty("active", False)
        self.setProperty("state", "loading")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(3)
        self.image = QLabel()
        self.image.setObjectName("tileImage")
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setText(tr("loading…"))
        self.image.setWordWrap(True)
        self.name = QLabel()
        self.name.setObjectName("tileName")
        self.name.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.name.setWordWrap(True)
        self.status = QLabel("")
        self.status.setObjectName("tileStatus")
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status.hide()
        layout.addWidget(self.image)
        layout.addWidget(self.name)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self._build_overlays()
        self._set_name(name)
        self.set_image_size(TILE_IMAGE_PX)

    def _build_overlays(self) -> None:
        """On the picture: the live preview's inset, the number badge, the remove button."""
        self.live = QLabel(self.image)
        self.live.setObjectName("tileLive")
        self.live.setToolTip(tr("Live preview: your camera with this face"))
        self.live.hide()
        self.badge = QLabel("", self.image)
        self.badge.setObjectName("tileBadge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.hide()
        self.remove_button = QToolButton(self.image)
        self.remove_button.setObjectName("tileRemove")
        self.remove_button.setText("✕")
        self.remove_button.setToolTip(tr("Remove this face from the gallery"))
        self.remove_button.setAccessibleName(tr("Remove this face"))
        self.remove_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the tile's menu has it
        self.remove_button.clicked.connect(lambda: self.remove_requested.emit(self.entry_id))

    # --- size -------------------------------------------------------------------------
    def set_image_size(self, px: int) -> None:
        """The tile's picture is `px` square; the name gets two lines below it."""
        self._px = px
        self.image.setFixedSize(QSize(px, px))
        self.name.setFixedWidth(px)
        self.setFixedWidth(px + 16)
        inset = round(px * INSET)
        self.live.setGeometry(QRect(px - inset - 3, px - inset - 3, inset, inset))
        self.badge.setGeometry(QRect(3, 3, max(20, self.badge.width()), 18))
        self.remove_button.setGeometry(QRect(px - 21, 3, 18, 18))
        self._show_images()

    def _set_name(self, name: str) -> None:
        self.display_name = pretty = display_name(name)
        self.name.setText(pretty)
        self.name.setToolTip(pretty)
        self._describe()

    def _describe(self) -> None:
        """What a screen reader says for this tile."""
        self.setAccessibleName(tr("Face: {name}").format(name=self.display_name))
        state = {
            "loading": tr("loading"),
            "failed": tr("could not be loaded"),
            "ready": tr("in use") if self.property("active") else tr("press Enter to use"),
        }[self.state]
        self.setAccessibleDescription(state)

    def _set_state(self, state: str) -> None:
        self.state = state
        self.setProperty("state", state)
        self._restyle()
        self._describe()

    def _restyle(self) -> None:
        self.style().unpolish(self)
        self.style().polish(self)

    # --- pictures: the photo, the live preview in its corner (swapped on hover) ----------
    @staticmethod
    def _pixmap(frame: Frame, size: QSize) -> QPixmap:
        image = to_qimage(np.ascontiguousarray(frame))
        return QPixmap.fromImage(image).scaled(
            size,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )

    def _show_images(self) -> None:
        if self.state != "ready" or self._photo is None:
            return
        big, small = self._photo, self._live
        if self._hovered and self._live is not None:
            big, small = self._live, self._photo
        self.image.setPixmap(self._pixmap(big, self.image.size()))
        self.live.setVisible(small is not None)
        if small is not None:
            self.live.setPixmap(self._pixmap(small, self.live.size()))

    def set_ready(self, key: str, name: str, thumbnail: Frame, warning: str | None) -> None:
        self.key = key
        self._photo = thumbnail
        self._set_name(name)
        self.status.setVisible(bool(warning))
        self.status.setText(warning or "")
        self.setToolTip(f"{name}\n{warning}" if warning else name)
        self._set_state("ready")
        self._show_images()

    def set_failed(self, reason: str, detail: str) -> None:
        self.key = None
        self._photo = self._live = None
        self.image.clear()
        self.image.setText(reason)
        self.live.hide()
        self.status.setText(tr("not loaded"))
        self.status.show()
        self.setToolTip(detail)
        self._set_state("failed")

    def set_preview(self, frame: Frame) -> None:
        """A new live mini-preview (camera frame swapped with this face)."""
        if self.state == "ready":
            self._live = frame
            self._show_images()
            self.previews_shown += 1

    def enterEvent(self, event: QEnterEvent) -> None:
        self._hovered = True
        self._show_images()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self._hovered = False
        self._show_images()
        super().leaveEvent(event)

    def set_active(self, active: bool) -> None:
        if self.property("active") != active:
            self.setProperty("active", active)
            self._restyle()
            self._describe()

    def set_badge(self, text: str) -> None:
        self.badge.setText(text)
        self.badge.adjustSize()
        self.badge.resize(max(20, self.badge.width() + 6), 18)
        self.badge.setVisible(bool(text))

    # --- input ------------------------------------------------------------------------
    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            self.clicked.emit(self.entry_id, ctrl)
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            self.clicked.emit(self.entry_id, ctrl)
            return
        if event.key() == Qt.Key.Key_Delete:
            self.remove_requested.emit(self.entry_id)
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        menu.addAction(tr("Use this face"), lambda: self.clicked.emit(self.entry_id, False))
        menu.addAction(
            tr("Add to left → right mapping"), lambda: self.clicked.emit(self.entry_id, True)
        )
        menu.addSeparator()
        menu.addAction(tr("Remove"), lambda: self.remove_requested.emit(self.entry_id))
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
        title = QLabel(tr("Faces"))
        title.setObjectName("sectionTitle")
        hint = QLabel(tr("click or press 1–9 to use · drop photos or folders here"))
        hint.setObjectName("hint")
        self.add_button = QPushButton(tr("+ Add faces…"))
        self.add_button.setToolTip(tr("Add face photos (Ctrl+O)"))
        self.add_button.setAccessibleName(tr("Add faces"))
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
        self.scroller.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the tiles take focus
        self.setMinimumHeight(MIN_TILE_IMAGE_PX + NAME_LINES_PX + 60)
        self.tile_px = TILE_IMAGE_PX
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
        tile.set_image_size(self.tile_px)
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
        self._fit_tiles()
        self.visible_changed.emit()

    def _fit_tiles(self) -> None:
        """Tile pictures as big as the strip's height allows (the splitter sets it)."""
        room = self.scroller.viewport().height() - NAME_LINES_PX - 16
        px = max(MIN_TILE_IMAGE_PX, min(TILE_IMAGE_PX, room))
        if px != self.tile_px:
            self.tile_px = px
            for tile in self._tiles.values():
                tile.set_image_size(px)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.visible_changed.emit()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.visible_changed.emit()
