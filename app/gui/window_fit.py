"""The window's first size and place: within the screen's available area (panels and
docks excluded), and a saved geometry from another, larger screen brought back on it.

The design size (1280×800) is taken where it fits; on a 1366×768 laptop or a 1024×640
screen the window is the available area less room for the title bar, so the status bar
and the controls are on screen from the first start.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow

log = logging.getLogger(__name__)

DESIGN_SIZE = QSize(1280, 800)
TITLE_BAR_PX = 32  # not known before the window manager decorates it; a typical height
EDGE_PX = 8


def available_area(window: QMainWindow) -> QRect:
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def fitted(area: QRect, size: QSize) -> QSize:
    """`size`, shrunk to fit `area` with room for the title bar and a small edge."""
    return QSize(
        min(size.width(), area.width() - 2 * EDGE_PX),
        min(size.height(), area.height() - TITLE_BAR_PX - EDGE_PX),
    )


def place_window(window: QMainWindow, saved: str | None) -> None:
    """Size and place `window` before it is first shown: the saved geometry when there
    is one, kept inside the available area; otherwise the design size, centred."""
    area = available_area(window)
    restored = saved is not None and window.restoreGeometry(QByteArray.fromBase64(saved.encode()))
    if restored and window.isMaximized():
        return  # maximised follows the screen it is on
    size = fitted(area, window.size() if restored else DESIGN_SIZE)
    window.resize(size)
    frame = QRect(window.pos(), QSize(size.width(), size.height() + TITLE_BAR_PX))
    if not restored or not area.contains(frame):
        # Centred when new; moved back on screen when the saved place is off it (a
        # second monitor unplugged, a smaller screen).
        x = area.x() + max(0, (area.width() - size.width()) // 2)
        y = area.y() + max(0, (area.height() - frame.height()) // 2)
        window.move(x, y)
    log.info(
        "window %dx%d at %d,%d; screen's available area %dx%d at %d,%d",
        size.width(), size.height(), window.x(), window.y(),
        area.width(), area.height(), area.x(), area.y(),
    )  # fmt: skip
