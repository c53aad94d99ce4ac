"""Drives the engine's `OutputSet` from the Outputs panel: virtual camera, stream, recording.

Opening a virtual camera or binding a port runs on the io task thread (drivers can be
slow); a failure turns the toggle back off and shows the output's own message, which
carries its setup steps. An output that dies later (driver gone, disk full) is switched
off with its reason while the live stream keeps running.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from pathlib import Path

import platformdirs
from PySide6.QtCore import QObject, QTimer, Signal

from app.gui.controllers.core import AppCore
from app.gui.widgets.outputs_panel import OUTPUTS, OutputsPanel
from engine.core.threads import Worker
from engine.outputs.output_set import OUTPUT_ERRORS, OutputConfig, RecordConfig
from engine.outputs.stream import StreamConfig

log = logging.getLogger(__name__)

LABELS = {"virtual_camera": "virtual camera", "stream": "stream", "record": "recorder"}


def default_record_dir() -> Path:
    return Path(platformdirs.user_videos_dir()) / "Fusecam"


def recording_path(folder: Path) -> Path:
    return folder / f"fusecam-{datetime.now():%Y%m%d-%H%M%S}.mp4"


def _short(text: str, limit: int = 90) -> str:
    """First line, cut to fit under a toggle; the message bar has the whole text."""
    line = text.splitlines()[0] if text else "failed"
    return line if len(line) <= limit else line[: limit - 1] + "…"


class OutputsController(QObject):
    message = Signal(str, str)  # level, text
    changed = Signal()  # something worth persisting (folder, port, delay)

    def __init__(
        self,
        core: AppCore,
        panel: OutputsPanel,
        record_dir: Path | None,
        stream_port: int,
        delay_ms: int = 0,
    ) -> None:
        super().__init__(panel)
        self.core = core
        self.panel = panel
        self.record_dir = record_dir
        self.stream_port = stream_port
        # The session owns the outputs (and stops them); this drives their toggles.
        self.outputs = core.session.open_outputs(OutputConfig(delay_ms=delay_ms))
        self._record_started = 0.0
        self._busy: set[str] = set()
        panel.toggled.connect(self.set_on)
        panel.port.setValue(stream_port)
        panel.port.valueChanged.connect(self._set_port)
        panel.delay.setValue(delay_ms)
        panel.delay.valueChanged.connect(self._set_delay)
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self.refresh)

    def start(self) -> None:
        """Refresh the panel's states (the outputs themselves run with the session)."""
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _set_port(self, port: int) -> None:
        self.stream_port = port
        self.changed.emit()

    def _set_delay(self, delay_ms: int) -> None:
        self.outputs.set_delay_ms(delay_ms)
        self.changed.emit()

    @property
    def delay_ms(self) -> int:
        return self.outputs.delay.delay_ms

    def is_on(self, name: str) -> bool:
        return self._sink(name) is not None

    def _sink(self, name: str) -> Worker | None:
        o = self.outputs
        return {"virtual_camera": o.virtual_cam, "stream": o.stream, "record": o.recorder}[name]

    def toggle(self, name: str) -> None:
        self.set_on(name, not self.is_on(name))

    def set_on(self, name: str, on: bool) -> None:
        if name in self._busy or on == self.is_on(name):
            self.refresh()
            return
        if not on:
            self._stop(name)
        elif name == "record":
            self._start_recording()
        else:
            self._busy.add(name)
            self.panel.set_state(name, True, "starting…", busy=True)
            port = self.stream_port
            job = (
                self.outputs.start_virtual_cam
                if name == "virtual_camera"
                else (lambda: self.outputs.start_stream(StreamConfig(port=port)))
            )
            self.core.io.submit(job, lambda _r, error: self._opened(name, error))
        self.refresh()

    def _stop(self, name: str) -> None:
        if name == "record":
            status = self.outputs.status().recording
            self.outputs.stop_recording(timeout=1.0)
            if status is not None:
                self.message.emit("info", f"Recorded {status.written} frames to {status.path}")
        elif name == "stream":
            self.outputs.stop_stream(timeout=1.0)
        else:
            self.outputs.stop_virtual_cam(timeout=1.0)

    def _opened(self, name: str, error: BaseException | None) -> None:
        self._busy.discard(name)
        if error is not None:
            text = str(error)
            self.panel.set_state(name, False, _short(text))
            self.message.emit("error", f"{LABELS[name]}: {text}")
        self.refresh()

    def _start_recording(self) -> None:
        folder = self.record_dir or default_record_dir()
        try:
            self.outputs.start_recording(RecordConfig(recording_path(folder)))
        except OUTPUT_ERRORS as exc:
            self.panel.set_state("record", False, _short(str(exc)))
            self.message.emit("error", f"recorder: {exc}")
            return
        self._record_started = time.monotonic()

    def refresh(self) -> None:
        status = self.outputs.status()
        texts: dict[str, tuple[str | None, str]] = {}  # name → (error, status text)
        if status.virtual_cam is not None:
            cam = status.virtual_cam
            texts["virtual_camera"] = (cam.error, f"on · {cam.info.describe()}")
        if status.stream is not None:
            s = status.stream
            texts["stream"] = (s.error, f"on · {s.url} · {s.viewers} watching")
        if status.recording is not None:
            r = status.recording
            seconds = int(time.monotonic() - self._record_started)
            texts["record"] = (
                r.error,
                f"● {seconds // 60:02d}:{seconds % 60:02d} · {r.written} frames · {r.path}",
            )
        for name in OUTPUTS:
            if name in self._busy:
                continue
            if name not in texts:
                if self.panel.buttons[name].isChecked():
                    self.panel.set_state(name, False, "off")
                continue
            error, text = texts[name]
            if error is not None:
                # The output died: switch it off, say why; the live stream keeps running.
                self._stop(name)
                self.panel.set_state(name, False, _short(f"stopped: {error}"))
            else:
                self.panel.set_state(name, True, text)
        stream = self.outputs.stream
        self.panel.set_url(stream.url if stream is not None else "")
