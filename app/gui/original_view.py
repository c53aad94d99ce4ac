"""The original view: the camera image instead of the swap, while Space is held or
until O (View → Show original) is pressed again.

One part of the main window: it owns its menu action and watches the application's
key events for Space (buttons and other keyboard controls keep theirs).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMainWindow,
    QTabBar,
    QWidget,
)

from app.gui.i18n import tr
from app.gui.widgets.preview import PreviewWidget
from engine.runtime.pipeline import Engine

# Controls that Space operates once the keyboard has moved focus to them (they take
# focus by Tab only, so a mouse click leaves Space to the original view).
KEYBOARD_CONTROLS = (
    QAbstractButton,
    QComboBox,
    QAbstractSlider,
    QTabBar,
    QAbstractItemView,
    QLineEdit,
    QAbstractSpinBox,
)


class OriginalView(QObject):
    def __init__(self, window: QMainWindow, preview: PreviewWidget, engine: Engine) -> None:
        super().__init__(window)
        self._window = window
        self._preview = preview
        self._engine = engine
        self.showing = False
        self._toggled = False  # the original view is on without Space held
        self.action = QAction(tr("Show original"), window)
        self.action.setCheckable(True)
        self.action.triggered.connect(self.toggle)

    def watch_keys(self) -> None:
        """Space anywhere in the window (the application's events: children get it first)."""
        QApplication.instance().installEventFilter(self)  # type: ignore[union-attr]

    def stop_watching(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def set_showing(self, on: bool) -> None:
        self.showing = on
        if not on:
            caption = ""
        elif self._toggled:
            caption = tr("ORIGINAL — press O to go back")
        else:
            caption = tr("ORIGINAL — release Space to go back")
        self._preview.set_caption(caption)
        if on:
            self._preview.set_marker("")
        self.action.setChecked(on)
        _, packet = self._engine.published.read()
        if packet is not None:
            self._preview.show_frame(packet.frame if on else packet.result)

    def toggle(self) -> None:
        self._toggled = not self.showing
        self.set_showing(self._toggled)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Hold Space anywhere in this window to see the original (buttons don't eat it)."""
        if event.type() in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            key_event: QKeyEvent = event  # type: ignore[assignment]
            if (
                key_event.key() == Qt.Key.Key_Space
                and isinstance(watched, QWidget)
                and watched.window() is self._window
                and not isinstance(watched, KEYBOARD_CONTROLS)
            ):
                if not key_event.isAutoRepeat():
                    pressed = event.type() == QEvent.Type.KeyPress
                    self.set_showing(pressed or self._toggled)
                return True
        return super().eventFilter(watched, event)
