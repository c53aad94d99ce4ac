"""The keyboard shortcuts: one table, used both to create them and to list them in Help."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget


@dataclass(frozen=True, slots=True)
class Shortcut:
    action: str  # MainWindow method name the key triggers ("" = handled elsewhere)
    keys: str  # QKeySequence text
    text: str  # what the user reads in Help


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("", "Space", "Hold to see the original camera image"),
    Shortcut("toggle_original", "O", "Show original / swapped (toggle)"),
    Shortcut("", "1 … 9", "Use face 1 … 9 of the gallery"),
    Shortcut("add_faces_dialog", "Ctrl+O", "Add face photos"),
    Shortcut("toggle_swap", "S", "Face swap on / off"),
    Shortcut("toggle_mirror", "M", "Mirror on / off"),
    Shortcut("toggle_enhancer", "E", "Enhancer on / off"),
    Shortcut("toggle_hud", "H", "Show / hide the heads-up display"),
    Shortcut("toggle_virtual_camera", "V", "Virtual camera on / off"),
    Shortcut("toggle_stream", "L", "Local network stream on / off"),
    Shortcut("toggle_recording", "R", "Start / stop recording"),
    Shortcut("toggle_fullscreen", "F11", "Full screen"),
    Shortcut("show_shortcuts", "F1", "This list"),
    Shortcut("close", "Ctrl+Q", "Quit"),
)


def shortcuts_html() -> str:
    rows = "".join(
        f"<tr><td style='padding-right:18px'><b>{s.keys}</b></td><td>{s.text}</td></tr>"
        for s in SHORTCUTS
    )
    return f"<table>{rows}</table>"


class ShortcutsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(shortcuts_html()))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
