"""Every output of a live session — virtual camera, network stream, recording — in one place.

The live session (engine.runtime.session) owns one; `fusecam run` opens the outputs its
flags ask for, the GUI's toggles open and close them live. All outputs read
one `DelayLine`, so they share one (optionally delayed) timeline, and the delay line
reads the `OutputGuard`, so no output ever gets a frame the swap missed; the GUI
preview keeps reading the engine directly and stays live.

Each `start_*` opens its device, socket or file on the caller's thread and raises one of
`OUTPUT_ERRORS` with a message for the user; nothing is left half-open when it fails.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, overload

from engine.core.settings import OutputSettings
from engine.core.threads import ErrorCallback, Worker
from engine.outputs.base import FrameFeed
from engine.outputs.delay import DelayLine, check_delay_ms
from engine.outputs.guard import GuardStatus, OutputGuard
from engine.outputs.recorder import Recorder, RecorderError
from engine.outputs.stream import StreamConfig, StreamError, StreamServer
from engine.outputs.virtualcam import (
    VirtualCamConfig,
    VirtualCamError,
    VirtualCamInfo,
    VirtualCamSink,
)

# What opening an output can raise: messages are written for the user (one line + help).
OUTPUT_ERRORS: tuple[type[Exception], ...] = (VirtualCamError, StreamError, RecorderError)

# The attributes holding the optional outputs (one of each at a time).
_Slot = Literal["virtual_cam", "stream", "recorder"]


@dataclass(frozen=True, slots=True)
class RecordConfig:
    path: Path
    side_by_side: bool = False  # input and output next to each other


@dataclass(frozen=True, slots=True)
class OutputConfig:
    virtual_cam: VirtualCamConfig | None = None
    stream: StreamConfig | None = None
    record: RecordConfig | None = None
    delay_ms: int = 0

    def __post_init__(self) -> None:
        check_delay_ms(self.delay_ms)


@dataclass(frozen=True, slots=True)
class VirtualCamStatus:
    info: VirtualCamInfo
    frames: int
    skipped: int
    error: str | None


@dataclass(frozen=True, slots=True)
class StreamStatus:
    url: str
    exposed: bool  # reachable from other machines (token required)
    viewers: int
    encoded: int
    error: str | None


@dataclass(frozen=True, slots=True)
class RecordingStatus:
    path: Path
    side_by_side: bool
    written: int  # frames in the file (repeats that keep it in real time included)
    error: str | None


@dataclass(frozen=True, slots=True)
class OutputStatus:
    guard: GuardStatus
    delay_ms: int
    delay_held: int  # frames waiting in the delay line
    delay_late: int  # frames whose processing took longer than the delay
    virtual_cam: VirtualCamStatus | None
    stream: StreamStatus | None
    recording: RecordingStatus | None


def _error_text(error: BaseException | None) -> str | None:
    return None if error is None else str(error)


class OutputSet:
    """The outputs of one session. Each can be started and stopped at any time, from any
    thread; `start()` begins delivery, and outputs started after it begin at once.
    Devices, sockets and files are opened outside the lock, so a slow driver never
    blocks `status()` or another output's toggle."""

    def __init__(
        self,
        engine: FrameFeed,
        *,
        input_size: tuple[int, int],
        input_fps: float,
        settings: Callable[[], OutputSettings] = OutputSettings,
        delay_ms: int = 0,
        on_error: ErrorCallback | None = None,
    ) -> None:
        """`settings`: the engine's current output settings (the guard's policy and the
        label), read once per frame."""
        self.input_size = input_size
        self.input_fps = input_fps
        self.on_error = on_error
        self.guard = OutputGuard(engine, settings)
        self.delay = DelayLine(self.guard, delay_ms, on_error)
        self.virtual_cam: VirtualCamSink | None = None
        self.stream: StreamServer | None = None
        self.recorder: Recorder | None = None
        self._running = False
        self._lock = threading.Lock()
        self._ended_errors: list[BaseException] = []  # of outputs already stopped

    # --- session lifecycle --------------------------------------------------------------
    def start(self) -> None:
        with self._lock:
            self._running = True
            self.guard.start()
            self.delay.start()
            for sink in (self.virtual_cam, self.stream, self.recorder):
                if sink is not None:
                    sink.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop every output (after the engine: the delay line hands its tail on first)."""
        with self._lock:
            self._running = False
        self.guard.stop()  # the engine has stopped: nothing new arrives anyway
        ok = self.delay.stop(timeout)
        if self.delay.error is not None and self.delay.error not in self._ended_errors:
            self._ended_errors.append(self.delay.error)
        ok = self.stop_virtual_cam(timeout) and ok
        ok = self.stop_stream(timeout) and ok
        return self.stop_recording(timeout) and ok

    def set_delay_ms(self, delay_ms: int) -> None:
        self.delay.set_delay_ms(delay_ms)

    # --- virtual camera -------------------------------------------------------------------
    def start_virtual_cam(self, config: VirtualCamConfig | None = None) -> VirtualCamInfo:
        """Open the camera and deliver to it; replaces a running one. Opening a driver can
        take a moment, so a GUI calls this off its own thread (the set is thread-safe)."""
        self.stop_virtual_cam()  # drivers offer one instance: release it before reopening
        sink = VirtualCamSink(
            self.delay,
            config or VirtualCamConfig(),
            self.input_size,
            self.input_fps,
            self.on_error,
        )
        info = sink.open()
        self._install("virtual_cam", sink)
        return info

    def stop_virtual_cam(self, timeout: float = 2.0) -> bool:
        sink = self._take("virtual_cam")
        return sink is None or self._stop_worker(sink, timeout)

    # --- network stream -------------------------------------------------------------------
    def start_stream(self, config: StreamConfig) -> str:
        """Listen now (a taken port fails here); returns the URL to give OBS."""
        self.stop_stream()  # frees the port when the new one is the same
        server = StreamServer(self.delay, config, self.on_error)
        url = server.open()
        self._install("stream", server)
        return url

    def stop_stream(self, timeout: float = 2.0) -> bool:
        server = self._take("stream")
        if server is None:
            return True
        ok = self._stop_worker(server, timeout)
        if server.jpegs.error is not None:
            self._ended_errors.append(server.jpegs.error)
        return ok

    # --- recording ------------------------------------------------------------------------
    def start_recording(self, config: RecordConfig) -> Path:
        recorder = Recorder(
            self.delay, config.path, self.input_fps, config.side_by_side, self.on_error
        )
        self._install("recorder", recorder)
        return recorder.path

    def stop_recording(self, timeout: float = 2.0) -> bool:
        recorder = self.detach_recording()
        return recorder is None or self.finish_recording(recorder, timeout)

    def detach_recording(self) -> Recorder | None:
        """Take the recording out of the set at once (it is off from now on); finish it
        with `finish_recording`, which may take a while: it checks the file."""
        return self._take("recorder")

    def finish_recording(self, recorder: Recorder, timeout: float = 2.0) -> bool:
        return self._stop_worker(recorder, timeout)

    def _install(self, slot: _Slot, sink: Worker) -> None:
        """Put an opened `sink` in `slot`, delivering at once if the set is running, and
        stop the one it replaces (another thread may have started one meanwhile)."""
        with self._lock:
            previous: Worker | None = getattr(self, slot)
            setattr(self, slot, sink)
            if self._running:
                sink.start()
        if previous is not None:
            self._stop_worker(previous, 2.0)

    @overload
    def _take(self, slot: Literal["virtual_cam"]) -> VirtualCamSink | None: ...
    @overload
    def _take(self, slot: Literal["stream"]) -> StreamServer | None: ...
    @overload
    def _take(self, slot: Literal["recorder"]) -> Recorder | None: ...
    def _take(self, slot: _Slot) -> Worker | None:
        """Empty `slot` under the lock and return what was in it (to stop outside it)."""
        with self._lock:
            taken: Worker | None = getattr(self, slot)
            setattr(self, slot, None)
        return taken

    def _stop_worker(self, worker: Worker, timeout: float) -> bool:
        ok = worker.stop(timeout)
        if worker.error is not None:
            self._ended_errors.append(worker.error)
        return ok

    # --- status -----------------------------------------------------------------------------
    def status(self) -> OutputStatus:
        cam, server, recorder = self.virtual_cam, self.stream, self.recorder
        cam_status = None
        if cam is not None and cam.info is not None:
            cam_status = VirtualCamStatus(cam.info, cam.frames, cam.skipped, _error_text(cam.error))
        stream_status = None
        if server is not None:
            stream_status = StreamStatus(
                server.url,
                server.config.exposed,
                server.viewers,
                server.jpegs.encoded,
                _error_text(server.error or server.jpegs.error),
            )
        recording = None
        if recorder is not None:
            recording = RecordingStatus(
                recorder.path, recorder.side_by_side, recorder.written, _error_text(recorder.error)
            )
        return OutputStatus(
            self.guard.status(),
            self.delay.delay_ms,
            self.delay.held,
            self.delay.late,
            cam_status,
            stream_status,
            recording,
        )

    def workers(self) -> list[Worker]:
        """The threads running now: the delay line and each open output's."""
        found: list[Worker | None] = [self.delay, self.virtual_cam, self.stream, self.recorder]
        if self.stream is not None:
            found.append(self.stream.jpegs)
        return [w for w in found if w is not None]

    @property
    def errors(self) -> list[BaseException]:
        """Errors that ended an output's thread, this session (each also went to `on_error`)."""
        live = [w.error for w in self.workers() if w.error is not None]
        return [*self._ended_errors, *(e for e in live if e not in self._ended_errors)]
