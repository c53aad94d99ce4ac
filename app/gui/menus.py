"""The menu bar. Actions call the window's actions (WindowActions, which MainWindow is);
keys come from the shortcuts table."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QToolButton

from app import __version__
from app.gui.i18n import LANGUAGES, QT_TR_NOOP, tr
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
    keys = _keys_for(action_name)
    if keys:
        # Shown in the menu only: the window's QShortcuts handle the keys themselves,
        # so a key works even while the menu bar is hidden (full screen).
        action.setText(
            f"{text}\t{QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)}"
        )
    action.triggered.connect(slot)
    return action


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


def build_menus(w: WindowActions) -> None:
    bar = w.menuBar()
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
    quit_action.triggered.connect(w.close)

    view = bar.addMenu(tr("&View"))
    w.original_action = _add(
        view, tr("Show original"), w.toggle_original, "toggle_original", checkable=True
    )
    w.hud_action = _add(view, tr("Heads-up display"), w.toggle_hud, "toggle_hud", checkable=True)
    w.hud_action.setChecked(w.hud.isVisible())
    sizes = view.addMenu(tr("Heads-up display size"))
    _choices(sizes, {m: HUD_SIZE_NAMES[m] for m in HUD_SIZES}, w.hud.size_mode, w.set_hud_size)  # type: ignore[arg-type]
    _add(view, tr("Control panel"), w.toggle_controls, "toggle_controls")
    _add(view, tr("Full screen"), w.toggle_fullscreen, "toggle_fullscreen")
    languages = view.addMenu(tr("Language"))
    names = {code: LANGUAGE_NAMES[code] for code in ("", "en", *LANGUAGES)}
    _choices(languages, names, w.state.language, w.set_language)

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
    help_menu.addAction(
        tr("About Fusecam"), lambda: QMessageBox.about(w, tr("About Fusecam"), _about())
    )
