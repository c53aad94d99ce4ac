"""The keyboard shortcuts: one table, used both to create them and to list them in Help."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from app.gui.i18n import QT_TR_NOOP, tr


@dataclass(frozen=True, slots=True)
class Shortcut:
    action: str  # MainWindow method name the key triggers ("" = handled elsewhere)
    keys: str  # QKeySequence text
    text: str  # what the user reads in Help (translated where shown)


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("", "Space", QT_TR_NOOP("Hold to see the original camera image")),
    Shortcut("toggle_original", "O", QT_TR_NOOP("Show original / swapped (toggle)")),
    Shortcut("", "1 … 9", QT_TR_NOOP("Use face 1 … 9 of the gallery")),
    Shortcut("", "Tab, Enter", QT_TR_NOOP("Move to a face or control; Enter uses a face")),
    Shortcut("add_faces_dialog", "Ctrl+O", QT_TR_NOOP("Add face photos")),
    Shortcut("toggle_swap", "S", QT_TR_NOOP("Face swap on / off")),
    Shortcut("toggle_mirror", "M", QT_TR_NOOP("Mirror on / off")),
    Shortcut("toggle_enhancer", "E", QT_TR_NOOP("Enhancer on / off")),
    Shortcut("toggle_hud", "H", QT_TR_NOOP("Show / hide the heads-up display")),
    Shortcut("toggle_controls", "C", QT_TR_NOOP("Show / hide the control panel")),
    Shortcut("toggle_virtual_camera", "V", QT_TR_NOOP("Virtual camera on / off")),
    Shortcut("toggle_stream", "L", QT_TR_NOOP("Local network stream on / off")),
    Shortcut("toggle_recording", "R", QT_TR_NOOP("Start / stop recording")),
    Shortcut("show_models", "Ctrl+M", QT_TR_NOOP("Manage models")),
    Shortcut("toggle_fullscreen", "F11", QT_TR_NOOP("Full screen")),
    Shortcut("show_shortcuts", "F1", QT_TR_NOOP("This list")),
    Shortcut("close", "Ctrl+Q", QT_TR_NOOP("Quit")),
)


def shortcuts_html() -> str:
    rows = "".join(
        f"<tr><td style='padding-right:18px'><b>{s.keys}</b></td><td>{tr(s.text)}</td></tr>"
        for s in SHORTCUTS
    )
    return f"<table>{rows}</table>"


class ShortcutsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Keyboard shortcuts"))
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(shortcuts_html()))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
