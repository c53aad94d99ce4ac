"""A non-blocking message bar: errors and notices that say what to do, never a modal box.

Repeats of the same message fold into one row with a counter, so a flapping camera does
not bury the window. Errors stay until dismissed; notices fade after a few seconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.gui.i18n import QT_TR_NOOP, tr

Level = Literal["info", "warning", "error"]

INFO_VISIBLE_MS = 6000
MAX_ROWS = 4


@dataclass(frozen=True, slots=True)
class Advice:
    pattern: str  # lower-case substring of "where: message"
    text: str


# What to do, for the errors a streamer meets. Matched in order against the lower-cased
# "where: message"; the engine's own message stays visible, the advice follows it.
ADVICE: tuple[Advice, ...] = (
    Advice(
        "busy",
        QT_TR_NOOP(
            "Close other apps that use the camera (Zoom, OBS, a browser tab) or pick "
            "another camera."
        ),
    ),
    Advice(
        "lost",
        QT_TR_NOOP("Check the cable; Fusecam reconnects on its own when the camera returns."),
    ),
    Advice("cannot open", QT_TR_NOOP("Pick another camera in Input, or use the demo source.")),
    Advice(
        "delivers no frames",
        QT_TR_NOOP("Try another resolution or frame rate, or another camera."),
    ),
    Advice(
        "model", QT_TR_NOOP("Get the model in Models → Manage models, or pick the built-in mode.")
    ),
    Advice(
        "virtual camera",
        QT_TR_NOOP(
            "Install the virtual camera driver (OBS Virtual Camera on "
            "Windows/macOS, v4l2loopback on Linux), then switch it on again."
        ),
    ),
    Advice(
        "cannot listen",
        QT_TR_NOOP(
            "Another program uses that port: pick another port under Outputs (0 = any free port)."
        ),
    ),
    Advice(
        "recorder",
        QT_TR_NOOP("Choose another folder for recordings (File → Folder for recordings)."),
    ),
    Advice("no face", QT_TR_NOOP("Use a sharp, frontal photo where the face is clearly visible.")),
    Advice("not a readable image", QT_TR_NOOP("Use a JPEG or PNG photo.")),
)


def advice_for(where: str, message: str) -> str | None:
    text = f"{where}: {message}".lower()
    for advice in ADVICE:
        if advice.pattern in text:
            return tr(advice.text)
    return None


class FallbackWatch:
    """Turns the selector stages' `packet.fallbacks` reasons (neural model loading,
    missing, failed) into message changes: one per change, never one per frame."""

    STAGES = (QT_TR_NOOP("swapper"), QT_TR_NOOP("enhancer"))

    def __init__(self) -> None:
        self._reasons: dict[str, str | None] = dict.fromkeys(self.STAGES)

    def update(self, fallbacks: Mapping[str, str]) -> list[tuple[str, str | None]]:
        """[(stage, reason or None when the neural stage is now in use)] that changed."""
        changes = []
        for stage in self.STAGES:
            reason = fallbacks.get(stage) or None
            if reason != self._reasons[stage]:
                changes.append((stage, reason))
                self._reasons[stage] = reason
        return changes


class MessageRow(QWidget):
    closed = Signal(object)

    def __init__(self, key: str, level: Level, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.level = level
        self.text = text
        self.count = 1
        self.setObjectName("messageRow")
        self.setProperty("level", level)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 4, 4)
        # Long help (driver install steps) stays folded so the preview keeps its room.
        summary, _, details = text.partition("\n")
        self.summary = summary
        self.label = QLabel(summary)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = QLabel(details.strip())
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setObjectName("messageDetails")
        self.details.hide()
        text_box = QVBoxLayout()
        text_box.setSpacing(2)
        text_box.addWidget(self.label)
        text_box.addWidget(self.details)
        self.more = QToolButton()
        self.more.setText(tr("How to fix ▸"))
        self.more.setAccessibleName(tr("How to fix"))
        self.more.setAutoRaise(True)
        self.more.setVisible(bool(details.strip()))
        self.more.clicked.connect(self.toggle_details)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip(tr("Dismiss"))
        close.setAccessibleName(tr("Dismiss this message"))
        close.setAutoRaise(True)
        close.clicked.connect(lambda: self.closed.emit(self))
        layout.addLayout(text_box, 1)
        layout.addWidget(self.more, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)

    def toggle_details(self) -> None:
        shown = not self.details.isVisible()
        self.details.setVisible(shown)
        self.more.setText(tr("Hide ▾") if shown else tr("How to fix ▸"))

    def bump(self) -> None:
        self.count += 1
        self.label.setText(f"{self.summary}  (×{self.count})")


class MessageBar(QWidget):
    """Stack of message rows above the preview. Safe to call only on the GUI thread."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self._rows: dict[str, MessageRow] = {}
        self.hide()

    def post(self, text: str, level: Level = "info", key: str | None = None) -> MessageRow:
        key = key or f"{level}:{text}"
        row = self._rows.get(key)
        if row is not None:
            row.bump()
        else:
            if len(self._rows) >= MAX_ROWS:
                self._remove(next(iter(self._rows.values())))
            row = MessageRow(key, level, text, self)
            row.closed.connect(self._remove)
            self._rows[key] = row
            self._layout.addWidget(row)
        if level == "info":
            QTimer.singleShot(INFO_VISIBLE_MS, row, lambda: self._remove(row))
        self.show()
        return row

    def post_error(self, where: str, message: str) -> MessageRow:
        advice = advice_for(where, message)
        summary, _, details = message.partition("\n")
        if advice and not details:
            text = f"{summary} — {advice}"
        else:
            # A message that brings its own help (setup steps) keeps it, folded.
            text = summary + ("\n" + details if details else "")
        return self.post(text, "error", key=f"error:{where}:{message}")

    def show_fallback(self, stage: str, reason: str | None, neural_wanted: bool) -> None:
        """A selector stage's state changed: loading, unavailable (why), or in use."""
        key = f"fallback:{stage}"
        self.dismiss(key)
        if reason is None:
            if neural_wanted:
                self.post(tr("The neural {stage} is in use.").format(stage=tr(stage)), "info")
        elif "loading" in reason:
            self.post(tr("Loading the neural {stage}…").format(stage=tr(stage)), "info", key=key)
        else:
            text = tr("Neural {stage} unavailable ({reason}); using the built-in one.").format(
                stage=tr(stage), reason=reason
            )
            advice = advice_for(stage, reason)
            self.post(f"{text} — {advice}" if advice else text, "warning", key=key)

    def _remove(self, row: MessageRow) -> None:
        if self._rows.get(row.key) is row:
            del self._rows[row.key]
            row.deleteLater()
        if not self._rows:
            self.hide()

    def dismiss(self, key: str) -> None:
        row = self._rows.get(key)
        if row is not None:
            self._remove(row)

    def texts(self) -> list[str]:
        """Each message's whole text (summary and folded details)."""
        return [
            "\n".join(t for t in (row.label.text(), row.details.text()) if t)
            for row in self._rows.values()
        ]
