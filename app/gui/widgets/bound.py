"""Controls bound to a settings path ("swap.blend"): build, name and display them.

Each widget emits `changed(path, value)` when the user operates it and is shown a
settings tree with `show()` without emitting, so no control echoes the engine's own
state back to it. Every widget gets an accessible name (what a screen reader says) from
its label.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QWidget,
)

from engine.core.settings_paths import get_path


@dataclass(slots=True)
class Binding:
    path: str
    widget: QWidget
    show: Callable[[Any], None]  # display a value without emitting


def narrow_combo() -> QComboBox:
    """A combo box that does not widen the panel to its longest entry (it still fills its
    column; the open list shows entries in full)."""
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(6)
    return combo


def plain(text: str) -> str:
    """A label without its shortcut hint: "Swap faces (S)" → "Swap faces"."""
    head, sep, tail = text.rpartition(" (")
    return head if sep and len(tail) <= 3 and tail.endswith(")") else text


class Bindings(QObject):
    changed = Signal(str, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: dict[str, Binding] = {}

    def check(self, path: str, text: str, tip: str = "") -> QCheckBox:
        box = QCheckBox(text)
        box.setAccessibleName(plain(text))
        box.setToolTip(tip)
        box.toggled.connect(lambda on: self.changed.emit(path, bool(on)))
        self.items[path] = Binding(path, box, lambda v: box.setChecked(bool(v)))
        return box

    def slider(
        self, path: str, name: str, scale: float, lo: int, hi: int, unit: str = "%"
    ) -> QWidget:
        """A slider and its value, in one row; the value is `position / scale`."""
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(lo, hi)
        slider.setAccessibleName(plain(name))
        value_label = QLabel()
        value_label.setMinimumWidth(38)
        value_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        def shown(pos: int) -> None:
            value_label.setText(f"{pos}{unit}")
            slider.setAccessibleDescription(f"{pos}{unit}")

        def moved(pos: int) -> None:
            shown(pos)
            self.changed.emit(path, pos / scale)

        def show(value: Any) -> None:
            pos = round(float(value) * scale)
            slider.setValue(pos)
            shown(pos)

        slider.valueChanged.connect(moved)
        h.addWidget(slider, 1)
        h.addWidget(value_label)
        self.items[path] = Binding(path, slider, show)
        return row

    def combo(self, path: str, name: str, options: Sequence[tuple[str, Any]]) -> QComboBox:
        combo = narrow_combo()
        combo.setAccessibleName(plain(name))
        for label, value in options:
            combo.addItem(label, value)

        def show(value: Any) -> None:
            index = combo.findData(value)
            if index >= 0:
                combo.setCurrentIndex(index)

        combo.currentIndexChanged.connect(
            lambda i: self.changed.emit(path, combo.itemData(i)) if i >= 0 else None
        )
        self.items[path] = Binding(path, combo, show)
        return combo

    def spin(self, path: str, name: str, lo: int, hi: int, step: int, suffix: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(lo, hi)
        spin.setSingleStep(step)
        spin.setSuffix(suffix)
        spin.setAccessibleName(plain(name))
        spin.valueChanged.connect(lambda v: self.changed.emit(path, int(v)))
        self.items[path] = Binding(path, spin, lambda v: spin.setValue(int(v)))
        return spin

    def show(self, settings: Any) -> None:
        for binding in self.items.values():
            binding.widget.blockSignals(True)
            try:
                binding.show(get_path(settings, binding.path))
            finally:
                binding.widget.blockSignals(False)
