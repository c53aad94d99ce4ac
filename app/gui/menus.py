"""The menu bar. Items call the window's actions (WindowActions, a part the window
holds); keys come from the shortcuts table."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QMessageBox, QToolButton

from app import __version__
from app.gui.i18n import LANGUAGES, QT_TR_NOOP, tr
from app.gui.original_view import OriginalView
from app.gui.widgets.hud import HUD_SIZES
from app.gui.widgets.shortcuts import SHORTCUTS
from app.gui.window_actions import WindowActions

# Each language is named in itself (tr leaves "English" and "Deutsch" as they are).
LANGUAGE_NAMES = {"": QT_TR_NOOP("System language"), "en": "English", "de": "Deutsch"}
HUD_SIZE_NAMES = {
    "auto": QT_TR_NOOP("Automatic (compact on a small picture)"),
    "compact": QT_TR_NOOP("Compact"),
    "full": QT_TR_NOOP("Full"),
}


def _about() -> str:
    return (
        f"<b>Fusecam {__version__}</b> — "
        + tr("real-time face swap for streamers.")
        + "<br>"
        + tr("Bundled sample faces are public-domain photographs.")
        + "<br>"
        + tr("Use only faces you have consent for.")
    )


def _keys_for(action: str) -> str:
    """The key of `action`; none for "" (rows the window handles itself, e.g. Space)."""
    if not action:
        return ""
    return next((s.keys for s in SHORTCUTS if s.action == action), "")


def _add(
    menu: QMenu, text: str, slot: object, action_name: str = "", checkable: bool = False
) -> QAction:
    action = menu.addAction(text)
    action.setCheckable(checkable)
    _show_keys(action, text, action_name)
    action.triggered.connect(slot)
    return action


def _place(menu: QMenu, action: QAction, action_name: str) -> None:
    """An action a part of the window owns (it keeps it checked), with its key."""
    _show_keys(action, action.text(), action_name)
    menu.addAction(action)


def _show_keys(action: QAction, text: str, action_name: str) -> None:
    keys = _keys_for(action_name)
    if keys:
        # Shown in the menu only: the window's QShortcuts handle the keys themselves,
        # so a key works even while the menu bar is hidden (full screen).
        action.setText(
            f"{text}\t{QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)}"
        )


def _choices(
    menu: QMenu, options: dict[str, str], current: str, choose: Callable[[str], None]
) -> None:
    """Radio items: one of `options` (value → label) is checked."""
    group = QActionGroup(menu)
    for value, label in options.items():
        action = menu.addAction(tr(label))
        action.setCheckable(True)
        action.setChecked(value == current)
        action.triggered.connect(lambda _on=False, v=value: choose(v))
        group.addAction(action)


def build_menus(
    window: QMainWindow, w: WindowActions, original: OriginalView, language: str
) -> None:
    bar = window.menuBar()
    # The "»" button a narrow window shows for the menus that do not fit.
    overflow = bar.findChild(QToolButton, "qt_menubar_ext_button")
    if overflow is not None:
        overflow.setAccessibleName(tr("More menus"))
    file_menu = bar.addMenu(tr("&File"))
    _add(file_menu, tr("Add face photos…"), w.add_faces_dialog, "add_faces_dialog")
    _add(file_menu, tr("Add one person from several photos…"), w.add_person_dialog)
    _add(file_menu, tr("Restore the sample faces"), w.restore_samples)
    file_menu.addSeparator()
    _add(file_menu, tr("Open video or image as input…"), w.open_input_dialog)
    _add(file_menu, tr("Folder for recordings…"), w.choose_record_folder)
    file_menu.addSeparator()
    quit_action = file_menu.addAction(tr("Quit"))
    quit_action.setShortcut(QKeySequence("Ctrl+Q"))
    quit_action.triggered.connect(window.close)

    view = bar.addMenu(tr("&View"))
    _place(view, original.action, "toggle_original")
    _place(view, w.hud_action, "toggle_hud")
    sizes = view.addMenu(tr("Heads-up display size"))
    hud_sizes = {m: HUD_SIZE_NAMES[m] for m in HUD_SIZES}
    _choices(sizes, hud_sizes, w.hud_size, w.set_hud_size)  # type: ignore[arg-type]
    _add(view, tr("Control panel"), w.toggle_controls, "toggle_controls")
    _add(view, tr("Full screen"), w.toggle_fullscreen, "toggle_fullscreen")
    languages = view.addMenu(tr("Language"))
    names = {code: LANGUAGE_NAMES[code] for code in ("", "en", *LANGUAGES)}
    _choices(languages, names, language, w.set_language)

    outputs = bar.addMenu(tr("&Outputs"))
    _add(outputs, tr("Virtual camera on/off"), w.toggle_virtual_camera, "toggle_virtual_camera")
    _add(outputs, tr("Local stream on/off"), w.toggle_stream, "toggle_stream")
    _add(outputs, tr("Start/stop recording"), w.toggle_recording, "toggle_recording")

    models = bar.addMenu(tr("&Models"))
    _add(models, tr("Manage models…"), w.show_models, "show_models")

    help_menu = bar.addMenu(tr("&Help"))
    _add(help_menu, tr("Keyboard shortcuts"), w.show_shortcuts, "show_shortcuts")
    _add(help_menu, tr("Responsible use"), w.show_notice)
    _add(help_menu, tr("System check (GPU, virtual camera, logs)…"), w.show_doctor)
    help_menu.addSeparator()
    _add(help_menu, tr("Check a file for the watermark…"), w.check_watermark_dialog)
    _add(help_menu, tr("Activity log…"), w.show_activity_log)
    help_menu.addSeparator()
    help_menu.addAction(
        tr("About Fusecam"), lambda: QMessageBox.about(window, tr("About Fusecam"), _about())
    )
