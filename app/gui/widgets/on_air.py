"""What is on air, always in view: the virtual camera, the stream (its address) and the
recorder (its elapsed time), each a one-click toggle that names its key.

A strip in the menu bar's right end (over the preview where the menu bar is the
system's); the same summary goes to the HUD and the status bar, so a streamer sees at
a glance what the world receives, whatever panel is open.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QMenuBar, QPushButton, QWidget

from app.gui.i18n import QT_TR_NOOP, tr

ON_AIR_OUTPUTS = ("virtual_camera", "stream", "record")
NAMES = {
    "virtual_camera": QT_TR_NOOP("Virtual camera"),
    "stream": QT_TR_NOOP("Stream"),
    "record": QT_TR_NOOP("Recorder"),
}
KEYS = {"virtual_camera": "V", "stream": "L", "record": "R"}  # as the shortcuts table
BAR_H = 24  # px
CORNER = Qt.Corner.TopRightCorner  # where the window puts it in the menu bar


@dataclass(frozen=True, slots=True)
class OnAir:
    """One output's state as the indicators show it."""

    name: str  # "virtual_camera", "stream" or "record"
    on: bool = False
    busy: bool = False  # starting or finishing
    detail: str = ""  # the stream's address, the recording's elapsed time

    def state_text(self) -> str:
        if self.busy:
            return tr("starting…") if self.on else tr("finishing…")
        if not self.on:
            return tr("off")
        return self.detail or tr("on")


def summary(states: list[OnAir]) -> str:
    """One line for the HUD and the status bar, e.g. `on air: Virtual camera · Stream
    http://127.0.0.1:8080/ · Recorder 00:42`."""
    live = [s for s in states if s.on and not s.busy]
    if not live:
        return tr("on air: nothing")
    parts = [f"{tr(NAMES[s.name])} {s.detail}".strip() for s in live]
    return tr("on air: {outputs}").format(outputs=" · ".join(parts))


class OnAirBar(QWidget):
    """Three toggles; `toggled(name)` asks for the output to be switched."""

    toggled = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("onAirBar")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.buttons: dict[str, QPushButton] = {}
        for name in ON_AIR_OUTPUTS:
            button = QPushButton()
            button.setObjectName("onAir")
            button.setCheckable(True)
            button.setMaximumHeight(BAR_H)  # a slim strip: the preview keeps its room
            button.setAccessibleName(tr(NAMES[name]))
            button.setToolTip(
                tr("Click or press {key} to switch it on or off").format(key=KEYS[name])
            )
            # The window's state decides the check, not the click: it flips back until
            # the output really runs.
            button.clicked.connect(lambda _on=False, n=name: self._clicked(n))
            layout.addWidget(button, 1)
            self.buttons[name] = button
        self.states = [OnAir(name) for name in ON_AIR_OUTPUTS]
        self.show_states(self.states)

    def _clicked(self, name: str) -> None:
        self.show_states(self.states)  # undo the click's own check until the state says
        self.toggled.emit(name)

    def show_states(self, states: list[OnAir]) -> None:
        self.states = states
        hint = self.sizeHint()
        for state in states:
            button = self.buttons[state.name]
            text = f"{KEYS[state.name]}  {tr(NAMES[state.name])}: {state.state_text()}"
            button.setText(("● " if state.on else "○ ") + text)
            button.setChecked(state.on)
            button.setProperty("live", state.on and not state.busy)
            button.setAccessibleDescription(state.state_text())
            button.style().unpolish(button)
            button.style().polish(button)
        if self.sizeHint() != hint:
            self._refit()

    def _refit(self) -> None:
        """Longer texts (an address, a clock): a menu bar lays its corner widget out only
        when it is set or resized, so set it again."""
        parent = self.parentWidget()
        if isinstance(parent, QMenuBar) and parent.cornerWidget(CORNER) is self:
            parent.setCornerWidget(self, CORNER)
        else:
            self.updateGeometry()
