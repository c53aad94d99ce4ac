"""Drives the engine's `OutputSet` from the Outputs panel: virtual camera, stream, recording.

Opening a virtual camera or binding a port runs on the io task thread (drivers can be
slow); a failure turns the toggle back off and shows the output's own message, which
carries its setup steps. An output that dies later (driver gone, disk full) is switched
off with its reason while the live stream keeps running. The virtual camera and the
stream that were on at exit come back on at the next start (they show the guard's
"Starting" card until the swapper is ready, never the camera image).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import platformdirs
from PySide6.QtCore import QObject, QTimer, Signal

from app import activity
from app.gui.controllers.core import AppCore
from app.gui.guard_text import guard_text
from app.gui.i18n import tr
from app.gui.lan import lan_url
from app.gui.widgets.on_air import OnAir
from app.gui.widgets.outputs_panel import OUTPUTS, OutputsPanel, loopback_devices
from engine.core.threads import Worker
from engine.outputs.output_set import OUTPUT_ERRORS, OutputConfig, RecordConfig
from engine.outputs.recorder import Recorder
from engine.outputs.stream import StreamConfig, generate_token
from engine.outputs.virtualcam import VirtualCamConfig

log = logging.getLogger(__name__)

LABELS = {"virtual_camera": "virtual camera", "stream": "stream", "record": "recorder"}
RESTORED = ("virtual_camera", "stream")  # a recording never starts by itself
LAN_HOST = "0.0.0.0"


def default_record_dir() -> Path:
    return Path(platformdirs.user_videos_dir()) / "Fusecam"


def recording_path(folder: Path) -> Path:
    """A new file name in `folder`, never one that exists (two recordings started
    within a second must not overwrite each other)."""
    stem = f"fusecam-{datetime.now():%Y%m%d-%H%M%S}"
    path = folder / f"{stem}.mp4"
    number = 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}.mp4"
    return path


def _short(text: str, limit: int = 90) -> str:
    """First line, cut to fit under a toggle; the message bar has the whole text."""
    line = text.splitlines()[0] if text else "failed"
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class OutputOptions:
    """What the Outputs panel remembers across restarts."""

    on: tuple[str, ...] = ()  # outputs running at exit (virtual camera, stream)
    vcam_device: str | None = None
    stream_lan: bool = False
    stream_token: str | None = None
    record_side_by_side: bool = False


class OutputsController(QObject):
    message = Signal(str, str)  # level, text
    on_air_changed = Signal(list)  # list[OnAir]: the indicators' states, after each refresh
    changed = Signal()  # something worth persisting (folder, port, delay, options)

    def __init__(
        self,
        core: AppCore,
        panel: OutputsPanel,
        record_dir: Path | None,
        stream_port: int,
        delay_ms: int = 0,
        options: OutputOptions | None = None,
    ) -> None:
        super().__init__(panel)
        self.core = core
        self.panel = panel
        self.record_dir = record_dir
        self.stream_port = stream_port
        options = options or OutputOptions()
        self.stream_token = options.stream_token or generate_token()
        self._restore_on = tuple(n for n in options.on if n in RESTORED)
        # The session owns the outputs (and stops them); this drives their toggles.
        self.outputs = core.session.open_outputs(OutputConfig(delay_ms=delay_ms))
        self._record_started = 0.0
        self._busy: set[str] = set()  # starting, stopping or finishing
        self._stopping: set[str] = set()  # on until its stop job ran, but off for good
        self.states: list[OnAir] = [OnAir(name) for name in OUTPUTS]
        panel.set_vcam_devices(loopback_devices(), options.vcam_device)
        panel.lan.setChecked(options.stream_lan)
        panel.token.setText(self.stream_token)
        panel.side_by_side.setChecked(options.record_side_by_side)
        panel.toggled.connect(self.set_on)
        panel.port.setValue(stream_port)
        panel.port.valueChanged.connect(self._set_port)
        panel.delay.setValue(delay_ms)
        panel.delay.valueChanged.connect(self._set_delay)
        panel.options_changed.connect(self.changed)
        panel.new_token_requested.connect(self._new_token)
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self.refresh)

    def start(self) -> None:
        """Switch back on what was on at the last exit; refresh the panel's states."""
        for name in self._restore_on:
            self.set_on(name, True)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def options(self) -> OutputOptions:
        return OutputOptions(
            on=tuple(
                n
                for n in RESTORED
                if (self.is_on(n) or n in self._busy) and n not in self._stopping
            ),
            vcam_device=self.panel.vcam_device_choice,
            stream_lan=self.panel.lan.isChecked(),
            stream_token=self.stream_token,
            record_side_by_side=self.panel.side_by_side.isChecked(),
        )

    def _set_port(self, port: int) -> None:
        self.stream_port = port
        self.changed.emit()

    def _set_delay(self, delay_ms: int) -> None:
        self.outputs.set_delay_ms(delay_ms)
        self.changed.emit()

    def _new_token(self) -> None:
        self.stream_token = generate_token()
        self.panel.token.setText(self.stream_token)
        self.changed.emit()
        if self.is_on("stream") and self.panel.lan.isChecked():
            self.message.emit("info", tr("New token: switch the stream off and on to use it."))

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

    def stream_config(self) -> StreamConfig:
        if self.panel.lan.isChecked():
            return StreamConfig(host=LAN_HOST, port=self.stream_port, token=self.stream_token)
        return StreamConfig(port=self.stream_port)

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
            self.panel.set_state(name, True, tr("starting…"), busy=True)
            self.core.io.submit(self._opener(name), lambda _r, error: self._opened(name, error))
        self.changed.emit()
        self.refresh()

    def _opener(self, name: str) -> Callable[[], object]:
        """The job that opens `name` on the io thread, with the panel's options now."""
        if name == "virtual_camera":
            config = VirtualCamConfig(device=self.panel.vcam_device_choice)
            return lambda: self.outputs.start_virtual_cam(config)
        stream = self.stream_config()
        return lambda: self.outputs.start_stream(stream)

    def _stop(self, name: str) -> None:
        if name == "record":
            # Finishing checks the file (its ends decode, every frame is there): on the
            # io thread, so a long recording never freezes the window.
            recorder = self.outputs.detach_recording()
            if recorder is None:
                return
            self._busy.add(name)
            self.panel.set_state(name, False, tr("finishing…"), busy=True)
            self.core.io.submit(
                lambda: self.outputs.finish_recording(recorder, timeout=120.0),
                lambda _r, _e: self._recording_finished(recorder),
            )
        else:
            # Stopping joins the output's thread: on the io thread too, so the window never
            # waits on it (and a start asked for meanwhile queues behind the stop).
            stop = self.outputs.stop_stream if name == "stream" else self.outputs.stop_virtual_cam
            self._busy.add(name)
            self._stopping.add(name)
            self.panel.set_state(name, False, tr("stopping…"), busy=True)
            self.core.io.submit(lambda: stop(timeout=1.0), lambda _r, _e: self._stopped(name))

    def _stopped(self, name: str) -> None:
        self._busy.discard(name)
        self._stopping.discard(name)
        self.changed.emit()
        self.refresh()

    def _recording_finished(self, recorder: Recorder) -> None:
        self._busy.discard("record")
        if recorder.finished:
            text = tr("Recorded {frames} frames to {path} ({codec})")
            self.message.emit(
                "info",
                text.format(frames=recorder.written, path=recorder.path, codec=recorder.codec),
            )
        elif recorder.error is not None:
            self.message.emit("error", f"recorder: {recorder.error}")
        self.refresh()

    def _log_activity(self, name: str, files: list[Path]) -> None:
        """One activity-log line per output switched on (app.activity)."""
        settings = self.core.engine.settings
        activity.record(
            "app",
            activity.source_faces(settings, self.core.library),
            {name: True},
            files,
            label=settings.output.synthetic_label,
        )

    def _opened(self, name: str, error: BaseException | None) -> None:
        self._busy.discard(name)
        if error is not None:
            text = str(error)
            self.panel.set_state(name, False, _short(text))
            self.message.emit("error", f"{LABELS[name]}: {text}")
        else:
            self._log_activity(name, [])
        self.changed.emit()
        self.refresh()

    def _start_recording(self) -> None:
        folder = self.record_dir or default_record_dir()
        config = RecordConfig(recording_path(folder), self.panel.side_by_side.isChecked())
        try:
            self.outputs.start_recording(config)
        except OUTPUT_ERRORS as exc:
            self.panel.set_state("record", False, _short(str(exc)))
            self.message.emit("error", f"recorder: {exc}")
            return
        self._record_started = time.monotonic()
        self._log_activity("record", [config.path])

    def refresh(self) -> None:
        status = self.outputs.status()
        self.panel.guard_status.setText(guard_text(status.guard))
        texts: dict[str, tuple[str | None, str]] = {}  # name → (error, status text)
        clock_text = ""
        if status.virtual_cam is not None:
            cam = status.virtual_cam
            texts["virtual_camera"] = (
                cam.error,
                tr("on · {what}").format(what=cam.info.describe()),
            )
        url = shown_url = ""
        server = self.outputs.stream
        if status.stream is not None and server is not None:
            s = status.stream
            # Exposed on the network: the address other devices use, token included.
            url = (lan_url(server.port, self.stream_token) if s.exposed else None) or s.url
            # On screen without the token: a captured window must not give it away.
            shown_url = server.config.url(server.port, "/", with_token=False)
            texts["stream"] = (
                s.error,
                tr("on · {url} · {n} watching").format(url=url, n=s.viewers),
            )
        if status.recording is not None:
            r = status.recording
            seconds = int(time.monotonic() - self._record_started)
            clock = f"● {seconds // 60:02d}:{seconds % 60:02d}"
            text = tr("{clock} · {frames} frames · {path}")
            clock_text = clock.removeprefix("● ")
            texts["record"] = (r.error, text.format(clock=clock, frames=r.written, path=r.path))
        for name in OUTPUTS:
            if name in self._busy:
                continue
            if name not in texts:
                if self.panel.buttons[name].isChecked():
                    self.panel.set_state(name, False, tr("off"))
                continue
            error, text = texts[name]
            if error is not None:
                # The output died: switch it off, say why; the live stream keeps running.
                self._stop(name)
                self.panel.set_state(
                    name, False, _short(tr("stopped: {error}").format(error=error))
                )
            else:
                self.panel.set_state(name, True, text)
        self.panel.set_url(url)
        self._emit_on_air({"stream": shown_url, "record": clock_text})

    def _emit_on_air(self, details: dict[str, str]) -> None:
        """The indicators' states, from the panel's toggles just set."""
        self.states = [
            OnAir(name, self.panel.buttons[name].isChecked(), name in self._busy, details[name])
            if name in details
            else OnAir(name, self.panel.buttons[name].isChecked(), name in self._busy)
            for name in OUTPUTS
        ]
        self.on_air_changed.emit(self.states)
