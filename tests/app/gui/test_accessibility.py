"""Screen readers and keyboards: every control has a name; Tab walks the window in
reading order; Space operates a control the keyboard moved to, and otherwise (after a
click) still shows the original picture."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QScrollBar,
    QTabBar,
    QWidget,
)

from app.gui.controllers.tasks import TaskRunner
from app.gui.widgets.doctor_dialog import DoctorDialog
from app.gui.widgets.models_dialog import ModelsDialog
from app.gui.widgets.notice import ResponsibleUseNotice
from app.gui.widgets.shortcuts import ShortcutsDialog
from engine.models import ModelStore

CONTROLS = (
    QAbstractButton,
    QComboBox,
    QAbstractSlider,
    QAbstractSpinBox,
    QLineEdit,
    QTabBar,
    QAbstractItemView,
)


def _part_of_another(widget: QWidget) -> bool:
    """Scroll bars, table headers and corners, a combo's list, a spin box's text field:
    parts of a control that carries the name."""
    if isinstance(widget, QScrollBar | QHeaderView):
        return True
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QComboBox | QAbstractSpinBox | QAbstractItemView):
            return True
        parent = parent.parentWidget()
    return False


def _controls(root: QWidget) -> list[QWidget]:
    found = [w for w in root.findChildren(QWidget) if isinstance(w, CONTROLS)]
    return [w for w in found if not _part_of_another(w)]


def _name(widget: QWidget) -> str:
    """What a screen reader announces (Qt's accessibility interface, not a property)."""
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name).strip() if interface is not None else ""


def _unnamed(root: QWidget) -> list[str]:
    return [
        f"{type(w).__name__} {w.objectName() or w.toolTip()[:40]!r}"
        for w in _controls(root)
        if not _name(w)
    ]


def test_every_control_in_the_window_has_a_name(make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)  # gallery tiles exist
    assert len(_controls(window)) > 40
    assert _unnamed(window) == [], _unnamed(window)
    for tile in window.gallery_panel.tiles():
        assert _name(tile).startswith("Face: ")
        assert tile.accessibleDescription() in ("in use", "press Enter to use")
    slider = window.controls.bindings["swap.blend"].widget
    assert _name(slider) == "Blend" and slider.accessibleDescription().endswith("%")
    assert _name(window.controls.bindings["swap.latent_blend"].widget) == "Identity mix"


def test_every_control_in_the_dialogs_has_a_name(qtbot, make_window) -> None:
    window = make_window(start=False)
    jobs = TaskRunner("test-a11y")
    dialogs = [
        ModelsDialog(ModelStore(), jobs, (), window),
        ResponsibleUseNotice(True, window),
        ShortcutsDialog(window),
        DoctorDialog("cpu", "logs: here", window),
    ]
    for dialog in dialogs:
        qtbot.addWidget(dialog)
        assert _unnamed(dialog) == [], type(dialog).__name__
    jobs.stop(0.5)


def _chain(window) -> list[QWidget]:  # type: ignore[no-untyped-def]
    """The widgets Tab visits, in order, from the gallery's Add button round to it."""
    start = window.gallery_panel.add_button
    chain, widget = [start], start.nextInFocusChain()
    while widget is not start and len(chain) < 500:
        takes_tab = widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        # A widget that hands its focus to another (a tab widget to its tab bar) is the
        # other one, for the keyboard.
        if takes_tab and widget.isVisible() and widget.focusProxy() is None:
            chain.append(widget)
        widget = widget.nextInFocusChain()
    return chain


def test_tab_walks_the_gallery_then_the_controls_in_reading_order(make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    chain = _chain(window)
    tiles = window.gallery_panel.tiles()
    assert chain[1 : 1 + len(tiles)] == tiles  # left to right
    assert chain[1 + len(tiles)] is window.controls.tabs.tabBar()
    # Then the Swap tab's controls, top to bottom.
    page = [
        w for w in chain[2 + len(tiles) :] if window.controls.tabs.currentWidget().isAncestorOf(w)
    ]
    tops = [w.mapTo(window, w.rect().topLeft()).y() for w in page]
    assert len(page) > 8 and tops == sorted(tops)
    assert window.controls.bindings["swap.enabled"].widget is page[0]


def test_space_operates_a_control_reached_by_keyboard(qtbot, make_window) -> None:
    window = make_window()
    window.activateWindow()
    box = window.controls.bindings["swap.enabled"].widget
    before = window.core.engine.settings.swap.enabled
    box.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert window.core.engine.settings.swap.enabled is not before
    assert not window.original.showing
    # A click does not take the focus: Space is the original view again.
    assert box.focusPolicy() == Qt.FocusPolicy.TabFocus
    qtbot.keyPress(window.preview, Qt.Key.Key_Space)
    assert window.original.showing
    qtbot.keyRelease(window.preview, Qt.Key.Key_Space)
    assert not window.original.showing


def test_a_face_tile_is_used_with_enter(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    second = window.gallery_panel.tiles()[1]
    second.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(second, Qt.Key.Key_Return)
    assert window.core.engine.settings.swap.source_key == second.key
    assert second.accessibleDescription() == "in use"
