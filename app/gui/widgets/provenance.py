"""Help → "Check a file for the watermark…" and Help → "Activity log": Fusecam's
provenance features in the window (docs/watermark.md)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import activity
from app.gui.i18n import tr
from engine.watermark.check import Unreadable, check


def _text_box(name: str) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setAccessibleName(name)
    box.setReadOnly(True)
    box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return box


class WatermarkCheckDialog(QDialog):
    """Checks one file on a thread of its own (a video takes seconds) and says what it
    found, as `fusecam check` does."""

    _done = Signal(str)  # emitted on the check thread; a str crosses threads safely

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Watermark check"))
        self.resize(640, 220)
        self.path = path
        layout = QVBoxLayout(self)
        self.verdict = QLabel(tr("Checking {file}…").format(file=path.name))
        self.verdict.setWordWrap(True)
        layout.addWidget(self.verdict)
        self.details = _text_box(tr("Watermark check details"))
        layout.addWidget(self.details, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.finished_text: str | None = None
        self._done.connect(self._show)
        threading.Thread(target=self._run, name="watermark-check", daemon=True).start()

    def _run(self) -> None:
        try:
            result = check(str(self.path))
        except Unreadable as exc:
            self._done.emit("unreadable\n" + str(exc))
            return
        kind = "marked" if result.marked else "too_small" if result.too_small else "clean"
        self._done.emit(f"{kind}\n{result.describe()}")

    def _show(self, message: str) -> None:
        kind, details = message.split("\n", 1)
        verdicts = {
            "marked": tr("{file} carries Fusecam's watermark: it was made with Fusecam."),
            "clean": tr("No Fusecam watermark found in {file}."),
            "too_small": tr("{file} is too small to say whether it carries the watermark."),
            "unreadable": tr("{file} could not be read as an image or a video."),
        }
        self.verdict.setText(verdicts[kind].format(file=self.path.name))
        self.details.setPlainText(details)
        self.finished_text = kind


class ActivityLogDialog(QDialog):
    """The activity log's entries, newest last, with where the file is and a button that
    empties it."""

    def __init__(self, path: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path or activity.activity_path()
        self.setWindowTitle(tr("Activity log"))
        self.resize(760, 420)
        layout = QVBoxLayout(self)
        intro = QLabel(
            tr(
                "Each run of Fusecam's outputs adds a line: when, with which source face, "
                "which outputs were on and where files went. It stays on this computer."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.entries = _text_box(tr("Activity log entries"))
        layout.addWidget(self.entries, 1)
        where = QLabel(tr("File: {path}").format(path=self.path))
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(where)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.clear_button = QPushButton(tr("Clear the log"))
        buttons.addButton(self.clear_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        self.clear_button.clicked.connect(self.clear)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.refresh()

    def refresh(self) -> None:
        lines = [_describe(entry) for entry in activity.read(self.path)]
        self.entries.setPlainText("\n".join(lines) if lines else tr("(no entries)"))
        self.clear_button.setEnabled(bool(lines))

    def clear(self) -> None:
        activity.clear(self.path)
        self.refresh()


def _describe(entry: dict[str, Any]) -> str:
    faces = ", ".join(
        f"{s.get('name') or '?'} ({str(s.get('hash', ''))[:12]})" for s in entry.get("sources", [])
    )
    outputs = ", ".join(name for name, on in entry.get("outputs", {}).items() if on)
    files = ", ".join(entry.get("files", []))
    line = f"{entry.get('time', '?')}  {entry.get('command', '?')}  {faces or '-'}  [{outputs}]"
    return f"{line}  → {files}" if files else line
