"""Help → System check: `fusecam doctor`'s report in a window, run off the GUI thread
(it loads onnxruntime's GPU libraries and opens a model), with where the logs are."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.i18n import tr
from engine.core.settings import ExecutionProvider
from engine.tools.doctor import format_report, run_checks


class DoctorDialog(QDialog):
    _report_ready = Signal(str)  # emitted on the check thread; a str crosses threads safely

    def __init__(
        self, provider: ExecutionProvider, logs_text: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("System check"))
        self.resize(760, 520)
        self._provider = provider
        layout = QVBoxLayout(self)
        intro = QLabel(
            tr(
                "What this computer can run on and what is missing, each with its fix "
                "(the same as <code>fusecam doctor</code>)."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.report = QPlainTextEdit(tr("Checking…"))
        self.report.setAccessibleName(tr("System check report"))
        self.report.setReadOnly(True)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.report, 1)
        logs = QLabel(logs_text)
        logs.setWordWrap(True)
        logs.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(logs)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.again = QPushButton(tr("Check again"))
        copy = QPushButton(tr("Copy report"))
        buttons.addButton(self.again, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.again.clicked.connect(self.check)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.report.toPlainText()))
        layout.addWidget(buttons)
        self._report_ready.connect(self._show)
        self.check()

    def check(self) -> None:
        self.again.setEnabled(False)
        self.report.setPlainText(tr("Checking…"))
        threading.Thread(target=self._run, name="system-check", daemon=True).start()

    def _run(self) -> None:
        self._report_ready.emit(format_report(run_checks(self._provider)))

    def _show(self, text: str) -> None:
        self.report.setPlainText(text)
        self.again.setEnabled(True)
