"""Outputs group: virtual camera, local stream and recording toggles with their status."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QToolButton,
    QWidget,
)

OUTPUTS = ("virtual_camera", "stream", "record")
TITLES = {
    "virtual_camera": (
        "Virtual camera (V)",
        "Send the output to a virtual camera (OBS, Zoom, Meet)",
    ),
    "stream": ("Local stream (L)", "Serve the output as an MJPEG stream (OBS Media Source, VLC)"),
    "record": ("Record (R)", "Record the output to a video file"),
}


class OutputsPanel(QGroupBox):
    toggled = Signal(str, bool)  # output name, wanted on
    port_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Outputs", parent)
        grid = QGridLayout(self)
        grid.setColumnStretch(1, 1)
        self.buttons: dict[str, QPushButton] = {}
        self.status: dict[str, QLabel] = {}
        for row, name in enumerate(OUTPUTS):
            title, tip = TITLES[name]
            button = QPushButton(title)
            button.setCheckable(True)
            button.setToolTip(tip)
            button.setObjectName("outputToggle")
            button.clicked.connect(lambda on, n=name: self.toggled.emit(n, bool(on)))
            status = QLabel("off")
            status.setObjectName("hint")
            status.setWordWrap(True)
            status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(button, 2 * row, 0, 1, 2)
            grid.addWidget(status, 2 * row + 1, 0, 1, 2)
            self.buttons[name] = button
            self.status[name] = status
        self.copy_url = QToolButton()
        self.copy_url.setText("Copy URL")
        self.copy_url.setEnabled(False)
        self.copy_url.clicked.connect(self._copy_url)
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setPrefix("port ")
        self.port.setToolTip(
            "Port of the local stream (0: any free port); applies when the stream is switched on"
        )
        self.port.valueChanged.connect(self.port_changed)
        port_row = QHBoxLayout()
        port_row.addWidget(self.port)
        port_row.addStretch(1)
        port_row.addWidget(self.copy_url)
        grid.addLayout(port_row, 2 * len(OUTPUTS), 0, 1, 2)
        self.delay = QSpinBox()
        self.delay.setRange(0, 1000)
        self.delay.setSingleStep(10)
        self.delay.setSuffix(" ms")
        self.delay.setToolTip(
            "Delay every output by this much after capture, so audio delayed by the same "
            "amount (in OBS) stays in sync. The preview stays live."
        )
        delay_row = QHBoxLayout()
        delay_row.addWidget(QLabel("Output delay"))
        delay_row.addWidget(self.delay)
        delay_row.addStretch(1)
        grid.addLayout(delay_row, 2 * len(OUTPUTS) + 1, 0, 1, 2)
        self._url = ""

    def set_state(self, name: str, on: bool, status: str, busy: bool = False) -> None:
        button = self.buttons[name]
        button.blockSignals(True)
        button.setChecked(on)
        button.blockSignals(False)
        button.setEnabled(not busy)
        self.status[name].setText(status)

    def set_url(self, url: str) -> None:
        self._url = url
        self.copy_url.setEnabled(bool(url))

    def _copy_url(self) -> None:
        if self._url:
            QGuiApplication.clipboard().setText(self._url)
