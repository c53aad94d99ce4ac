"""The main window's widgets and where they sit, so the preview dominates at any size.

Preview over the face gallery in a vertical splitter (drag the handle; the gallery's
tiles shrink with it), the control panel in a closable dock of tabs (C hides it), the
message bar above and a status strip below. At 1024×640 this leaves the preview about
three quarters of the window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QComboBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QSplitter,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from app.gui.i18n import tr
from app.gui.layout_state import LayoutState
from app.gui.widgets.controls import ControlPanel
from app.gui.widgets.gallery import GalleryPanel
from app.gui.widgets.hud import HudOverlay
from app.gui.widgets.messages import MessageBar
from app.gui.widgets.on_air import CORNER, OnAirBar
from app.gui.widgets.outputs_panel import OutputsPanel
from app.gui.widgets.preview import PreviewWidget
from engine.core.settings import EngineSettings

DOCK_MIN_W = 290
DOCK_W = 300  # a slider and its value fit; the preview takes the rest
GALLERY_MAX_H = 236  # tiles at their largest
GALLERY_SHARE = 0.24  # of the window's height, when the user has not dragged it


def focus_by_keyboard_only(root: QWidget) -> None:
    """Buttons, boxes, sliders and tabs under `root` take focus by Tab, not by a click:
    Space then operates the control a keyboard user moved to, and after a mouse click it
    still shows the original picture (held Space, the window's shortcut)."""
    for widget in root.findChildren(QWidget):
        if isinstance(widget, QAbstractButton | QComboBox | QAbstractSlider | QTabBar):
            widget.setFocusPolicy(Qt.FocusPolicy.TabFocus)


class WindowLayout:
    """Builds the widgets into `window` and keeps references to them."""

    def __init__(self, window: QMainWindow, settings: EngineSettings, saved: LayoutState) -> None:
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(6)
        self.messages = MessageBar()
        self.preview = PreviewWidget()
        self.hud = HudOverlay()
        self.hud.set_corner(saved.hud_corner)
        self.hud.set_size_mode(saved.hud_size)
        self.preview.set_overlay(self.hud)
        self.hud.setVisible(saved.show_hud)
        self.gallery_panel = GalleryPanel()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("previewSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.preview)
        self.splitter.addWidget(self.gallery_panel)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        self.gallery_height = saved.gallery_height
        layout.addWidget(self.messages)
        self.on_air = self._place_on_air(window, layout)
        layout.addWidget(self.splitter, 1)
        window.setCentralWidget(central)
        self.controls = ControlPanel(settings)
        self.outputs_panel = OutputsPanel()
        self.controls.add_to_outputs(self.outputs_panel)
        self.controls.setMinimumWidth(DOCK_MIN_W)
        self.dock = QDockWidget(tr("Controls"))
        self.dock.setObjectName("controlsDock")
        self.dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.dock.setWidget(self.controls)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.setVisible(saved.controls_visible)
        focus_by_keyboard_only(self.controls)
        self.gallery_panel.add_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.source_label = QLabel(tr("starting…"))
        self.guard_label = QLabel("")
        self.guard_label.setObjectName("guardStatus")
        self.provider_label = QLabel("")
        self.on_air_label = QLabel(tr("on air: nothing"))
        self.on_air_label.setObjectName("onAirStatus")
        status = window.statusBar()
        status.addWidget(self.source_label, 1)
        status.addPermanentWidget(self.on_air_label)
        status.addPermanentWidget(self.guard_label)
        status.addPermanentWidget(self.provider_label)

    @staticmethod
    def _place_on_air(window: QMainWindow, layout: QVBoxLayout) -> OnAirBar:
        """In the menu bar's free right end: always in view, whatever panel is open, and
        no row taken from the preview; above the preview where the menu bar is the
        system's (macOS: a global menu bar shows no widgets)."""
        bar = OnAirBar()
        menu_bar = window.menuBar()
        if menu_bar.isNativeMenuBar():
            layout.addWidget(bar)
        else:
            menu_bar.setCornerWidget(bar, CORNER)
        return bar

    def fit_dock(self, window: QMainWindow) -> None:
        """As narrow as the widest tab's controls allow (translations are longer)."""
        width = max(DOCK_W, self.controls.content_width())
        window.resizeDocks([self.dock], [width], Qt.Orientation.Horizontal)

    def fit_gallery(self, window_height: int) -> None:
        """The gallery's height: the user's (dragged), else a share of the window."""
        total = sum(self.splitter.sizes()) or window_height
        wanted = self.gallery_height or round(GALLERY_SHARE * window_height)
        gallery = max(self.gallery_panel.minimumHeight(), min(GALLERY_MAX_H, wanted))
        self.splitter.setSizes([max(1, total - gallery), gallery])

    def focus_chain(self) -> list[QWidget]:
        """Keyboard order: the gallery (add, then its tiles, left to right), then the
        control panel's tabs and their controls, top to bottom."""
        return [self.gallery_panel.add_button, *self.gallery_panel.tiles(), self.controls.tabs]
