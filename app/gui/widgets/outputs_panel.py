"""Outputs group: virtual camera (which device), local stream (LAN with a token), recording
(optionally beside the input), the delay, and what the output guard is doing now."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.i18n import QT_TR_NOOP, tr
from app.gui.widgets.bound import narrow_combo
from engine.sources.devices import video_devices

OUTPUTS = ("virtual_camera", "stream", "record")
TITLES = {
    "virtual_camera": (
        QT_TR_NOOP("Virtual camera (V)"),
        QT_TR_NOOP("Send the output to a virtual camera (OBS, Zoom, Meet)"),
    ),
    "stream": (
        QT_TR_NOOP("Local stream (L)"),
        QT_TR_NOOP(
            "Serve the output over HTTP: MPEG-TS with capture times for OBS's Media "
            "Source, MJPEG for browsers. Open the address shown for the OBS steps."
        ),
    ),
    "record": (QT_TR_NOOP("Record (R)"), QT_TR_NOOP("Record the output to a video file")),
}


def _row(*widgets: QWidget, stretch_after: int = -1) -> QHBoxLayout:
    row = QHBoxLayout()
    for i, widget in enumerate(widgets):
        row.addWidget(widget)
        if i == stretch_after:
            row.addStretch(1)
    return row


def loopback_devices() -> list[tuple[str, str]]:
    """(label, device) of the virtual camera devices the OS lists (Linux v4l2loopback)."""
    return [
        (f"{d.name} (/dev/video{d.index})", f"/dev/video{d.index}")
        for d in video_devices()
        if d.virtual
    ]


class OutputsPanel(QGroupBox):
    toggled = Signal(str, bool)  # output name, wanted on
    port_changed = Signal(int)
    options_changed = Signal()  # device, LAN or side-by-side changed
    new_token_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(tr("Outputs"), parent)
        grid = QGridLayout(self)
        grid.setColumnStretch(1, 1)
        self.guard_status = QLabel(tr("Protection: starting…"))
        self.guard_status.setObjectName("guardStatus")
        self.guard_status.setWordWrap(True)
        grid.addWidget(self.guard_status, 0, 0, 1, 2)
        self.buttons: dict[str, QPushButton] = {}
        self.status: dict[str, QLabel] = {}
        options = {
            "virtual_camera": self._vcam_options,
            "stream": self._stream_options,
            "record": self._record_options,
        }
        row = 1
        for name in OUTPUTS:
            title, tip = TITLES[name]
            button = QPushButton(tr(title))
            button.setCheckable(True)
            button.setToolTip(tr(tip))
            button.setAccessibleName(tr(title).rsplit(" (", 1)[0])
            button.setObjectName("outputToggle")
            button.clicked.connect(lambda on, n=name: self.toggled.emit(n, bool(on)))
            status = QLabel(tr("off"))
            status.setObjectName("hint")
            status.setWordWrap(True)
            status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(button, row, 0, 1, 2)
            grid.addLayout(options[name](), row + 1, 0, 1, 2)
            grid.addWidget(status, row + 2, 0, 1, 2)
            self.buttons[name] = button
            self.status[name] = status
            row += 3
        self.delay = QSpinBox()
        self.delay.setRange(0, 1000)
        self.delay.setSingleStep(10)
        self.delay.setSuffix(" ms")
        self.delay.setAccessibleName(tr("Output delay"))
        self.delay.setToolTip(
            tr(
                "Delay every output by this much after capture, so audio delayed by the same "
                "amount (in OBS) stays in sync. The preview stays live."
            )
        )
        grid.addLayout(_row(QLabel(tr("Output delay")), self.delay, stretch_after=1), row, 0, 1, 2)
        self._url = ""

    # --- per-output options -------------------------------------------------------------
    def _vcam_options(self) -> QHBoxLayout:
        self.vcam_device = narrow_combo()
        self.vcam_device.setEditable(True)
        self.vcam_device.setAccessibleName(tr("Virtual camera device"))
        self.vcam_device.setToolTip(
            tr(
                "Which virtual camera to send to. Automatic: the first free one. "
                "Linux: /dev/videoN (v4l2loopback); Windows: “Unity Video Capture”."
            )
        )
        self.set_vcam_devices(loopback_devices())
        self.vcam_device.currentIndexChanged.connect(lambda _i: self.options_changed.emit())
        self.vcam_device.editTextChanged.connect(lambda _t: self.options_changed.emit())
        return _row(QLabel(tr("Device")), self.vcam_device)

    def set_vcam_devices(self, devices: list[tuple[str, str]], current: str | None = None) -> None:
        combo = self.vcam_device
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(tr("Automatic"), None)
        for label, device in devices:
            combo.addItem(label, device)
        if current:
            index = combo.findData(current)
            if index < 0:
                combo.addItem(current, current)
                index = combo.count() - 1
            combo.setCurrentIndex(index)
        combo.blockSignals(False)

    @property
    def vcam_device_choice(self) -> str | None:
        """The device to open (None: automatic): a listed one, or what the user typed."""
        combo = self.vcam_device
        text = combo.currentText().strip()
        index = combo.findText(text)
        if index >= 0:
            data = combo.itemData(index)
            return None if data is None else str(data)
        return text or None

    def _stream_options(self) -> QVBoxLayout:
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setPrefix(tr("port "))
        self.port.setAccessibleName(tr("Stream port"))
        self.port.setToolTip(
            tr(
                "Port of the local stream (0: any free port); applies when the stream is "
                "switched on"
            )
        )
        self.port.valueChanged.connect(self.port_changed)
        self.lan = QCheckBox(tr("Other devices"))
        self.lan.setAccessibleName(tr("Reachable from other devices on my network"))
        self.lan.setToolTip(
            tr(
                "Listen on the local network, not only on this computer. Every viewer must "
                "then send the access token (it is in the URL you copy)."
            )
        )
        self.lan.toggled.connect(self._on_lan)
        self.token = QLineEdit()
        self.token.setReadOnly(True)
        self.token.setAccessibleName(tr("Stream access token"))
        self.token.setToolTip(tr("The access token viewers on other devices must send"))
        self.new_token = QToolButton()
        self.new_token.setText(tr("New token"))
        self.new_token.setAccessibleName(tr("Make a new stream token"))
        self.new_token.clicked.connect(self.new_token_requested)
        self.copy_url = QToolButton()
        self.copy_url.setText(tr("Copy URL"))
        self.copy_url.setAccessibleName(tr("Copy the stream URL"))
        self.copy_url.setEnabled(False)
        self.copy_url.clicked.connect(self._copy_url)
        rows = QVBoxLayout()
        rows.addLayout(_row(self.port, self.lan, stretch_after=1))
        self.token.setMinimumWidth(60)
        token_row = _row(self.token, self.new_token, self.copy_url)
        token_row.setStretch(0, 1)
        rows.addLayout(token_row)
        self._on_lan(False)
        return rows

    def _on_lan(self, on: bool) -> None:
        self.token.setVisible(on)
        self.new_token.setVisible(on)
        self.options_changed.emit()

    def _record_options(self) -> QHBoxLayout:
        self.side_by_side = QCheckBox(tr("Input beside output"))
        self.side_by_side.setAccessibleName(tr("Record the camera image beside the output"))
        self.side_by_side.setToolTip(
            tr(
                "The recording shows your camera image on the left and the output on the "
                "right, to compare them. The left half is NOT protected: it is your real face."
            )
        )
        self.side_by_side.toggled.connect(lambda _on: self.options_changed.emit())
        return _row(self.side_by_side, stretch_after=0)

    # --- state --------------------------------------------------------------------------
    def set_state(self, name: str, on: bool, status: str, busy: bool = False) -> None:
        button = self.buttons[name]
        button.blockSignals(True)
        button.setChecked(on)
        button.blockSignals(False)
        button.setEnabled(not busy)
        self.status[name].setText(status)
        button.setAccessibleDescription(status)

    def set_url(self, url: str) -> None:
        self._url = url
        self.copy_url.setEnabled(bool(url))

    def _copy_url(self) -> None:
        if self._url:
            QGuiApplication.clipboard().setText(self._url)
