"""The responsible-use notice shown on first launch (and from the Help menu).

It is window-modal but opened with `open()`, never `exec()`: the event loop and the
stream keep running behind it, and a headless screenshot run simply never shows it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from app.gui.i18n import QT_TR_NOOP, tr

NOTICE_HTML = QT_TR_NOOP("""
<h3>Use Fusecam responsibly</h3>
<p>Fusecam replaces your face with another person's face, live.</p>
<ul>
<li>Use only faces of people who have <b>agreed</b> to it — yourself, or someone who
gave you their consent.</li>
<li>Do not use it to deceive, impersonate, harass or defraud anyone, and follow the rules
of the platforms you stream to.</li>
<li>Tell your audience when what they see is synthetic. Fusecam draws a visible
<b>SYNTHETIC</b> label on everything it sends out (virtual camera, stream and
recordings; your own preview stays clean). It is on by default: to turn it off, untick
the box below, or later <i>Outputs → Show a “SYNTHETIC” label</i>.</li>
</ul>
""")


class ResponsibleUseNotice(QDialog):
    """`accepted_with_label(bool)`: the user accepted; the bool is the label choice."""

    accepted_with_label = Signal(bool)

    def __init__(self, label_on: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Fusecam — responsible use"))
        self.setObjectName("notice")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        layout = QVBoxLayout(self)
        text = QLabel(tr(NOTICE_HTML))
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        text.setMinimumWidth(440)
        self.label_box = QCheckBox(tr("Show a visible “SYNTHETIC” label on the outputs"))
        self.label_box.setChecked(label_on)
        buttons = QDialogButtonBox()
        self.ok_button = buttons.addButton(
            tr("I understand"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        buttons.accepted.connect(self.accept)
        layout.addWidget(text)
        layout.addWidget(self.label_box)
        layout.addWidget(buttons)

    def accept(self) -> None:
        self.accepted_with_label.emit(self.label_box.isChecked())
        super().accept()
