"""The control panel: input picker and every engine setting a streamer touches.

Each control names the settings path it edits and emits `setting_changed(path, value)`;
the window applies it to the engine. `sync()` shows a settings tree without emitting, so
the panel never echoes the engine's own state back to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.core.settings import EngineSettings
from engine.core.settings_paths import get_path, has_path
from engine.models.onnx import offered_providers
from engine.sources.choice import InputChoice
from engine.sources.devices import camera_label, video_devices

RESOLUTIONS = ((640, 480), (1280, 720), (1920, 1080))
FRAME_RATES = (15.0, 24.0, 30.0, 60.0)
BROWSE = "browse"
PROVIDER_LABELS = {
    "auto": "Automatic (best available)",
    "cuda": "NVIDIA CUDA",
    "tensorrt": "NVIDIA TensorRT",
    "coreml": "Apple CoreML",
    "directml": "DirectML (Windows GPU)",
    "openvino": "Intel OpenVINO",
    "cpu": "CPU",
}

# Occlusion options appear only when the engine's settings offer them.
OPTIONAL_TOGGLES: tuple[tuple[str, str], ...] = (
    ("hands.enabled", "Keep hands in front of the face visible"),
)


@dataclass(slots=True)
class Binding:
    path: str
    widget: QWidget
    show: Callable[[Any], None]  # display a value without emitting


class ControlPanel(QWidget):
    setting_changed = Signal(str, object)
    input_changed = Signal(object)  # InputChoice
    browse_input_requested = Signal()
    refresh_cameras_requested = Signal()

    def __init__(self, settings: EngineSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("controlPanel")
        self.bindings: dict[str, Binding] = {}
        self._choice = InputChoice()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(10)
        layout.addWidget(self._input_group())
        layout.addWidget(self._swap_group(settings))
        layout.addWidget(self._enhancer_group())
        layout.addWidget(self._look_group())
        layout.addWidget(self._models_group())
        self.extra_layout = layout  # the window adds the outputs group here
        self.sync(settings)

    # --- builders -------------------------------------------------------------------
    def _check(self, path: str, text: str) -> QCheckBox:
        box = QCheckBox(text)
        box.toggled.connect(lambda on: self.setting_changed.emit(path, bool(on)))
        self.bindings[path] = Binding(path, box, lambda v: box.setChecked(bool(v)))
        return box

    def _slider(self, path: str, scale: float, lo: int, hi: int, unit: str = "%") -> QWidget:
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(lo, hi)
        value_label = QLabel()
        value_label.setMinimumWidth(38)
        value_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        def moved(pos: int) -> None:
            value_label.setText(f"{pos}{unit}")
            self.setting_changed.emit(path, pos / scale)

        def show(value: Any) -> None:
            pos = round(float(value) * scale)
            slider.setValue(pos)
            value_label.setText(f"{pos}{unit}")

        slider.valueChanged.connect(moved)
        h.addWidget(slider, 1)
        h.addWidget(value_label)
        self.bindings[path] = Binding(path, slider, show)
        return row

    def _combo(self, path: str, options: Sequence[tuple[str, Any]]) -> QComboBox:
        combo = QComboBox()
        for label, value in options:
            combo.addItem(label, value)

        def show(value: Any) -> None:
            index = combo.findData(value)
            if index >= 0:
                combo.setCurrentIndex(index)

        combo.currentIndexChanged.connect(
            lambda i: self.setting_changed.emit(path, combo.itemData(i))
        )
        self.bindings[path] = Binding(path, combo, show)
        return combo

    def _input_group(self) -> QGroupBox:
        group = QGroupBox("Input")
        form = QFormLayout(group)
        self.input_combo = QComboBox()
        self.input_combo.setToolTip("Camera, demo or a video/image file")
        self.input_combo.activated.connect(self._on_input_picked)
        refresh = QToolButton()
        refresh.setText("⟳")
        refresh.setToolTip("Look for cameras again")
        refresh.clicked.connect(self.refresh_cameras_requested)
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(self.input_combo, 1)
        h.addWidget(refresh)
        form.addRow("Source", row)
        self.resolution_combo = QComboBox()
        for w, h_px in RESOLUTIONS:
            self.resolution_combo.addItem(f"{w}×{h_px}", f"{w}x{h_px}")
        self.resolution_combo.activated.connect(lambda _i: self._emit_input())
        self.fps_combo = QComboBox()
        for fps in FRAME_RATES:
            self.fps_combo.addItem(f"{fps:g} fps", fps)
        self.fps_combo.activated.connect(lambda _i: self._emit_input())
        form.addRow("Resolution", self.resolution_combo)
        form.addRow("Frame rate", self.fps_combo)
        form.addRow(self._check("output.mirror", "Mirror (M)"))
        self.set_cameras([])
        return group

    def _swap_group(self, settings: EngineSettings) -> QGroupBox:
        group = QGroupBox("Face swap")
        form = QFormLayout(group)
        form.addRow(self._check("swap.enabled", "Swap faces (S)"))
        form.addRow("Strength", self._slider("swap.alpha", 100, 0, 100))
        form.addRow("Face shape", self._slider("swap.shape_alpha", 100, 0, 100))
        form.addRow(
            "Faces",
            self._combo(
                "swap.face_selection",
                (
                    ("Main face", "main"),
                    ("All faces", "all"),
                    ("Map left → right", "map"),
                ),
            ),
        )
        self.mapping_label = QLabel("Ctrl+click faces in the gallery to map them left → right")
        self.mapping_label.setWordWrap(True)
        self.mapping_label.setObjectName("hint")
        form.addRow(self.mapping_label)
        form.addRow(self._check("swap.keep_mouth_interior", "Keep my mouth interior"))
        form.addRow(self._check("compositor.color_match", "Match skin colour"))
        form.addRow("Edge softness", self._slider("compositor.seam_width", 100, 2, 60))
        for path, text in OPTIONAL_TOGGLES:
            if has_path(settings, path) and isinstance(get_path(settings, path), bool):
                form.addRow(self._check(path, text))
        return group

    def _enhancer_group(self) -> QGroupBox:
        group = QGroupBox("Enhancer")
        form = QFormLayout(group)
        form.addRow(
            "Mode (E)",
            self._combo(
                "enhancer.mode",
                (
                    ("Off", "off"),
                    ("Built-in", "builtin"),
                    ("Neural (ONNX)", "neural"),
                ),
            ),
        )
        form.addRow("Strength", self._slider("enhancer.strength", 100, 0, 100))
        self.enhancer_cost = QLabel("cost: toggle to measure")
        self.enhancer_cost.setObjectName("hint")
        form.addRow(self.enhancer_cost)
        # The quality governor steps the enhancer (then more) down to hold this rate.
        target = self._combo(
            "quality.target_fps",
            (("No target", None), ("24 fps", 24.0), ("30 fps", 30.0), ("60 fps", 60.0)),
        )
        target.setToolTip("Lower quality automatically when processing can't keep this rate")
        form.addRow("Hold", target)
        return group

    def _look_group(self) -> QGroupBox:
        group = QGroupBox("Label and overlay")
        form = QFormLayout(group)
        form.addRow(self._check("output.synthetic_label", 'Show a "SYNTHETIC" label'))
        form.addRow(self._check("output.debug_overlay", "Debug overlay"))
        return group

    def _models_group(self) -> QGroupBox:
        group = QGroupBox("Models")
        form = QFormLayout(group)
        form.addRow(
            "Swapper",
            self._combo(
                "swap.swapper",
                (("Built-in (no download)", "builtin"), ("Neural (inswapper)", "inswapper")),
            ),
        )
        form.addRow(
            "Run on",
            self._combo(
                "models.provider",
                [(PROVIDER_LABELS.get(p, p), p) for p in offered_providers()],
            ),
        )
        hint = QLabel("Changing these reloads the models in the background.")
        hint.setObjectName("hint")
        hint.setWordWrap(True)
        form.addRow(hint)
        return group

    # --- input picker ---------------------------------------------------------------
    def set_cameras(self, indices: Sequence[int]) -> None:
        """Rebuild the source list: demo, the cameras found, the current file, browse."""
        combo = self.input_combo
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("Demo (moving portrait)", InputChoice(kind="demo"))
        devices: list[int | str] = list(indices)
        if self._choice.kind in ("camera", "auto") and self._choice.device not in devices:
            devices.insert(0, self._choice.device)
        named = video_devices()  # Linux: the OS's names; elsewhere "Camera N"
        for device in devices:
            label = camera_label(device, named) if isinstance(device, int) else f"Camera {device}"
            combo.addItem(label, InputChoice(kind="camera", device=device))
        if self._choice.kind == "file":
            combo.addItem(f"File: {self._choice.label()}", self._choice)
        combo.addItem("Open video or image…", BROWSE)
        combo.blockSignals(False)
        self._select_choice()

    def set_input(self, choice: InputChoice) -> None:
        """Show the input in use (no signal)."""
        self._choice = choice
        self.set_cameras(self._camera_items())
        index = self.resolution_combo.findData(f"{choice.width}x{choice.height}")
        if index >= 0:
            self.resolution_combo.setCurrentIndex(index)
        index = self.fps_combo.findData(choice.fps)
        if index >= 0:
            self.fps_combo.setCurrentIndex(index)

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
            self._emit_input()

    def _emit_input(self) -> None:
        width, height = (int(v) for v in str(self.resolution_combo.currentData()).split("x"))
        self._choice = dataclasses.replace(
            self._choice, width=width, height=height, fps=self.fps_combo.currentData()
        )
        self.input_changed.emit(self._choice)

    @property
    def choice(self) -> InputChoice:
        return self._choice

    # --- display --------------------------------------------------------------------
    def sync(self, settings: EngineSettings) -> None:
        for binding in self.bindings.values():
            binding.widget.blockSignals(True)
            try:
                binding.show(get_path(settings, binding.path))
            finally:
                binding.widget.blockSignals(False)
        self.mapping_label.setVisible(settings.swap.face_selection == "map")

    def set_mapping_text(self, names: Sequence[str]) -> None:
        if names:
            self.mapping_label.setText("Left → right: " + ", ".join(names))
        else:
            self.mapping_label.setText("Ctrl+click faces in the gallery to map them left → right")

    def set_enhancer_cost(self, text: str) -> None:
        self.enhancer_cost.setText(text)
