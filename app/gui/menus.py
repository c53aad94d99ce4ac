"""The menu bar. Actions call the window's actions (WindowActions, which MainWindow is);
keys come from the shortcuts table."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox

from app.gui.widgets.shortcuts import SHORTCUTS
from app.gui.window_actions import WindowActions

ABOUT = (
    "<b>Fusecam</b> — real-time face swap for streamers.<br>"
    "Bundled sample faces are public-domain photographs.<br>"
    "Use only faces you have consent for."
)


def _keys_for(action: str) -> str:
    return next((s.keys for s in SHORTCUTS if s.action == action), "")


def _add(
    menu: QMenu, text: str, slot: object, action_name: str = "", checkable: bool = False
) -> QAction:
    action = menu.addAction(text)
    action.setCheckable(checkable)
    keys = _keys_for(action_name)
    if keys:
        # Shown in the menu only: the window's QShortcuts handle the keys themselves,
        # so a key works even while the menu bar is hidden (full screen).
        action.setText(
            f"{text}\t{QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)}"
        )
    action.triggered.connect(slot)
    return action


def build_menus(w: WindowActions) -> None:
    bar = w.menuBar()
    file_menu = bar.addMenu("&File")
    _add(file_menu, "Add face photos…", w.add_faces_dialog, "add_faces_dialog")
    _add(file_menu, "Add one person from several photos…", w.add_person_dialog)
    _add(file_menu, "Restore the sample faces", w.restore_samples)
    file_menu.addSeparator()
    _add(file_menu, "Open video or image as input…", w.open_input_dialog)
    _add(file_menu, "Folder for recordings…", w.choose_record_folder)
    file_menu.addSeparator()
    quit_action = file_menu.addAction("Quit")
    quit_action.setShortcut(QKeySequence("Ctrl+Q"))
    quit_action.triggered.connect(w.close)

    view = bar.addMenu("&View")
    w.original_action = _add(
        view, "Show original", w.toggle_original, "toggle_original", checkable=True
    )
    w.hud_action = _add(view, "Heads-up display", w.toggle_hud, "toggle_hud", checkable=True)
    w.hud_action.setChecked(w.hud.isVisible())
    _add(view, "Full screen", w.toggle_fullscreen, "toggle_fullscreen")

    outputs = bar.addMenu("&Outputs")
    _add(outputs, "Virtual camera on/off", w.toggle_virtual_camera, "toggle_virtual_camera")
    _add(outputs, "Local stream on/off", w.toggle_stream, "toggle_stream")
    _add(outputs, "Start/stop recording", w.toggle_recording, "toggle_recording")

    help_menu = bar.addMenu("&Help")
    _add(help_menu, "Keyboard shortcuts", w.show_shortcuts, "show_shortcuts")
    _add(help_menu, "Responsible use", w.show_notice)
    _add(help_menu, "System check (GPU, virtual camera, logs)…", w.show_doctor)
    help_menu.addAction("About Fusecam", lambda: QMessageBox.about(w, "About Fusecam", ABOUT))
