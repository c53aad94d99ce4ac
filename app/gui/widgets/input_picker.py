"""The input picker: camera, demo or a file, and the size and rate asked of a camera.

What it shows is what runs: a video or image file plays at its own size and rate (shown,
not editable), and a camera that delivers another size than the one asked for says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QWidget,
)

from app.gui.i18n import tr
from app.gui.widgets.bound import narrow_combo
from engine.sources.base import SourceInfo
from engine.sources.choice import InputChoice
from engine.sources.devices import camera_label, video_devices

RESOLUTIONS = ((640, 480), (1280, 720), (1920, 1080))
FRAME_RATES = (15.0, 24.0, 30.0, 60.0)
BROWSE = "browse"
ACTUAL = "actual"  # the combo entry that shows what a file or camera really delivers


class InputPicker(QWidget):
    input_changed = Signal(object)  # InputChoice
    browse_input_requested = Signal()
    refresh_cameras_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._choice = InputChoice()
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.form = form
        self.input_combo = narrow_combo()
        self.input_combo.setToolTip(tr("Camera, demo or a video/image file"))
        self.input_combo.setAccessibleName(tr("Source"))
        self.input_combo.activated.connect(self._on_input_picked)
        refresh = QToolButton()
        refresh.setText("⟳")
        refresh.setToolTip(tr("Look for cameras again"))
        refresh.setAccessibleName(tr("Look for cameras again"))
        refresh.clicked.connect(self.refresh_cameras_requested)
        self.refresh_button = refresh
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(self.input_combo, 1)
        h.addWidget(refresh)
        form.addRow(tr("Source"), row)
        self.resolution_combo = narrow_combo()
        self.resolution_combo.setAccessibleName(tr("Resolution"))
        self.resolution_combo.activated.connect(lambda _i: self._emit_input())
        self.fps_combo = narrow_combo()
        self.fps_combo.setAccessibleName(tr("Frame rate"))
        self.fps_combo.activated.connect(lambda _i: self._emit_input())
        form.addRow(tr("Resolution"), self.resolution_combo)
        form.addRow(tr("Frame rate"), self.fps_combo)
        self.delivered = QLabel("")
        self.delivered.setObjectName("hint")
        self.delivered.setWordWrap(True)
        self.delivered.hide()
        form.addRow(self.delivered)
        self._fill_sizes(None)
        self.set_cameras([])

    # --- the source list ----------------------------------------------------------------
    def set_cameras(self, indices: Sequence[int]) -> None:
        """Rebuild the source list: demo, the cameras found, the current file, browse."""
        combo = self.input_combo
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(tr("Demo portrait"), InputChoice(kind="demo"))
        devices: list[int | str] = list(indices)
        if self._choice.kind in ("camera", "auto") and self._choice.device not in devices:
            devices.insert(0, self._choice.device)
        named = video_devices()  # Linux: the OS's names; elsewhere "Camera N"
        for device in devices:
            label = camera_label(device, named) if isinstance(device, int) else f"Camera {device}"
            combo.addItem(label, InputChoice(kind="camera", device=device))
        if self._choice.kind == "file":
            combo.addItem(tr("File: {name}").format(name=self._choice.label()), self._choice)
        combo.addItem(tr("Open video or image…"), BROWSE)
        combo.blockSignals(False)
        self._select_choice()

    def set_input(self, choice: InputChoice, info: SourceInfo | None = None) -> None:
        """Show the input in use and what it really delivers (no signal)."""
        self._choice = choice
        self.set_cameras(self._camera_items())
        self._fill_sizes(info if choice.kind == "file" else None)
        file_input = choice.kind == "file"
        self.resolution_combo.setEnabled(not file_input)
        self.fps_combo.setEnabled(not file_input)
        tip = tr("A file plays at its own size and frame rate.") if file_input else ""
        self.resolution_combo.setToolTip(tip)
        self.fps_combo.setToolTip(tip)
        if not file_input:
            self._select_data(self.resolution_combo, f"{choice.width}x{choice.height}")
            self._select_data(self.fps_combo, choice.fps)
        asked = (choice.width, choice.height)
        gives = (info.width, info.height) if info is not None else asked
        differs = not file_input and info is not None and gives != asked
        self.delivered.setVisible(differs)
        if differs and info is not None:
            self.delivered.setText(
                tr("The camera delivers {w}×{h} at {fps:g} fps.").format(
                    w=info.width, h=info.height, fps=info.fps
                )
            )

    def _fill_sizes(self, file_info: SourceInfo | None) -> None:
        """The camera sizes and rates, or only the file's own."""
        for combo in (self.resolution_combo, self.fps_combo):
            combo.blockSignals(True)
            combo.clear()
        if file_info is not None:
            self.resolution_combo.addItem(f"{file_info.width}×{file_info.height}", ACTUAL)
            self.fps_combo.addItem(f"{file_info.fps:g} fps", ACTUAL)
        else:
            for w, h in RESOLUTIONS:
                self.resolution_combo.addItem(f"{w}×{h}", f"{w}x{h}")
            for fps in FRAME_RATES:
                self.fps_combo.addItem(f"{fps:g} fps", fps)
        for combo in (self.resolution_combo, self.fps_combo):
            combo.blockSignals(False)

    @staticmethod
    def _select_data(combo: QComboBox, data: object) -> None:
        index = combo.findData(data)
        if index >= 0:
            combo.blockSignals(True)
            combo.setCurrentIndex(index)
            combo.blockSignals(False)

    def _camera_items(self) -> list[int]:
        items = []
        for i in range(self.input_combo.count()):
            data = self.input_combo.itemData(i)
            if isinstance(data, InputChoice) and data.kind == "camera":
                items.append(data.device)
        return [d for d in items if isinstance(d, int)]

    def _select_choice(self) -> None:
        c = self._choice
        for i in range(self.input_combo.count()):
            data = self.input_combo.itemData(i)
            if not isinstance(data, InputChoice):
                continue
            same_kind = data.kind == c.kind or (data.kind == "camera" and c.kind == "auto")
            if (
                same_kind
                and (c.kind == "demo" or data.device == c.device)
                and (data.path == c.path)
            ):
                self.input_combo.blockSignals(True)
                self.input_combo.setCurrentIndex(i)
                self.input_combo.blockSignals(False)
                return

    def _on_input_picked(self, index: int) -> None:
        data = self.input_combo.itemData(index)
        if data == BROWSE:
            self._select_choice()  # keep showing the current input until a file is chosen
            self.browse_input_requested.emit()
            return
        if isinstance(data, InputChoice):
            self._choice = dataclasses.replace(
                self._choice, kind=data.kind, device=data.device, path=data.path
            )
            if data.kind != "file" and not self.fps_combo.isEnabled():
                self._fill_sizes(None)  # from a file back to a camera: its sizes again
                c = self._choice
                self._select_data(self.resolution_combo, f"{c.width}x{c.height}")
                self._select_data(self.fps_combo, c.fps)
                self.resolution_combo.setEnabled(True)
                self.fps_combo.setEnabled(True)
            self._emit_input()

    def _emit_input(self) -> None:
        size = self.resolution_combo.currentData()
        if size not in (None, ACTUAL):
            width, height = (int(v) for v in str(size).split("x"))
            self._choice = dataclasses.replace(self._choice, width=width, height=height)
        fps = self.fps_combo.currentData()
        if fps not in (None, ACTUAL):
            self._choice = dataclasses.replace(self._choice, fps=float(fps))
        self.input_changed.emit(self._choice)

    @property
    def choice(self) -> InputChoice:
        return self._choice
