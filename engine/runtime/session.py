"""The live session: a source that can be switched, the engine and its stages, the outputs.

Every front-end runs through one: `fusecam run` (one source, the outputs it was asked
for), the desktop app (sources switched live, outputs toggled live, mini-previews as an
extra sink), `fusecam bench` (one per measured run) and `fusecam swap` (no source at
all: it only prepares the stages and feeds `engine.process` itself).

It starts the parts consumer-first and stops them in the documented order (DESIGN.md):
source, engine, outputs and sinks, then the stages (their model loaders) — so no part
is left waiting on one that already stopped, and nothing feeds a stopped engine.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from engine.core.threads import ErrorCallback, Worker
from engine.models.onnx import ModelLoadError
from engine.outputs.output_set import OutputConfig, OutputSet
from engine.runtime.factory import providers_of
from engine.runtime.pipeline import Engine
from engine.sources.base import FrameSource
from engine.stages.base import Stage

log = logging.getLogger(__name__)

# The size and rate outputs open with until a source says its own.
_DEFAULT_INPUT = ((1280, 720), 30.0)


class LiveSession:
    """One run. Any thread may switch the source, toggle outputs and add sinks; `stop`
    is idempotent and quick the second time."""

    def __init__(
        self,
        engine: Engine,
        source: FrameSource | None = None,
        sinks: Sequence[Worker] = (),
        *,
        on_error: ErrorCallback | None = None,
    ) -> None:
        self.engine = engine
        self.on_error = on_error
        if on_error is not None and engine.on_error is None:
            engine.on_error = on_error
        self.source: FrameSource | None = None
        self.sinks: list[Worker] = list(sinks)
        self.outputs: OutputSet | None = None  # opened by `open_outputs`
        self.switches = 0
        self._running = False
        # A switch (the app's io thread) and `start`/`stop` (the window) never interleave:
        # a source switched in during a stop would be left running.
        self._source_lock = threading.RLock()
        if source is not None:
            self.switch_source(source)

    # --- stages ---------------------------------------------------------------------------
    @property
    def stages(self) -> tuple[Stage, ...]:
        return self.engine.stages

    def set_stages(self, stages: Sequence[Stage], timeout: float = 2.0) -> None:
        """Run these stages from the next frame on; the ones they replace are closed."""
        old = self.engine.stages
        self.engine.set_stages(stages)
        for stage in old:
            if not any(stage is kept for kept in stages):
                stage.close(timeout)

    def prepare_stages(self) -> dict[str, str]:
        """Load every stage's models now, for the current settings (blocking). Returns why
        a stage could not load, by stage name; such a stage falls back as it would live."""
        failed: dict[str, str] = {}
        settings = self.engine.effective_settings
        for stage in self.engine.stages:
            try:
                stage.prepare(settings)
            except ModelLoadError as exc:
                failed[stage.name] = str(exc)
        return failed

    def providers(self) -> list[str]:
        """Execution providers the running stages' models are on (the HUD, bench)."""
        return providers_of(self.engine.stages)

    # --- source ---------------------------------------------------------------------------
    def switch_source(self, source: FrameSource, timeout: float = 1.0) -> None:
        """Feed the engine from `source` (opened here if it is not yet), stopping the
        previous one first so two never feed the engine. The engine keeps running."""
        if source.on_error is None:
            source.on_error = self.on_error
        info = source.info if source.info is not None else source.open()
        with self._source_lock:
            old = self.source
            if old is not None:
                old.on_end = None
                old.stop(timeout)
            source.bind(self.engine.input)
            self.source = source
            self.switches += 1
            if self.outputs is not None:  # outputs opened from now on take its size and rate
                self.outputs.input_size = (info.width, info.height)
                self.outputs.input_fps = info.fps
            if self._running:
                source.start()

    # --- outputs and sinks ----------------------------------------------------------------
    def open_outputs(self, config: OutputConfig | None = None) -> OutputSet:
        """The session's outputs (virtual camera, stream, recording behind one delay line),
        with every one `config` asks for opened now; on a failure the ones opened are
        closed again and the error (one of OUTPUT_ERRORS) is raised."""
        config = config or OutputConfig()
        if self.outputs is None:
            info = self.source.info if self.source is not None else None
            size, fps = _DEFAULT_INPUT if info is None else ((info.width, info.height), info.fps)
            engine = self.engine
            self.outputs = OutputSet(
                engine,
                input_size=size,
                input_fps=fps,
                settings=lambda: engine.effective_settings.output,
                on_error=self.on_error,
            )
            if self._running:
                self.outputs.start()
        outputs = self.outputs
        outputs.set_delay_ms(config.delay_ms)
        try:
            if config.virtual_cam is not None:
                outputs.start_virtual_cam(config.virtual_cam)
            if config.stream is not None:
                outputs.start_stream(config.stream)
            if config.record is not None:
                outputs.start_recording(config.record)
        except BaseException:
            outputs.stop()
            raise
        return outputs

    def add_sink(self, sink: Worker) -> None:
        """Another consumer of the engine's frames (started now if the session runs)."""
        self.sinks.append(sink)
        if self._running:
            sink.start()

    def remove_sink(self, sink: Worker, timeout: float = 2.0) -> bool:
        if sink in self.sinks:
            self.sinks.remove(sink)
        return sink.stop(timeout)

    # --- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        """Consumers first: outputs and sinks, the engine, then the source."""
        self._running = True
        if self.outputs is not None:
            self.outputs.start()
        for sink in self.sinks:
            sink.start()
        self.engine.start()
        with self._source_lock:
            if self.source is not None:
                self.source.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop everything in the documented order; True when every thread ended within
        `timeout` each. The delay line stops after the engine, so it hands on its tail."""
        with self._source_lock:
            self._running = False
            ok = self.source.stop(timeout) if self.source is not None else True
        ok = self.engine.stop(timeout) and ok
        if self.outputs is not None:
            ok = self.outputs.stop(timeout) and ok
        for sink in self.sinks:
            ok = sink.stop(timeout) and ok
        for stage in self.engine.stages:
            stage.close(timeout)  # background model loads: the stages' own threads
        if not ok:
            log.warning("some threads did not stop within %.1f s", timeout)
        return ok

    def threads(self) -> list[Worker]:
        """Every thread the session runs, in stop order."""
        parts: list[Worker] = [self.engine]
        if self.source is not None:
            parts.insert(0, self.source)
        if self.outputs is not None:
            parts += self.outputs.workers()
        return [*parts, *self.sinks]

    @property
    def error(self) -> BaseException | None:
        """The first error that ended a part of the session (source, engine or output)."""
        source_error = self.source.error if self.source is not None else None
        output_errors = self.outputs.errors if self.outputs is not None else []
        return self.engine.error or source_error or next(iter(output_errors), None)

    # --- waiting (command line, benchmark, tests) --------------------------------------------
    def wait_frames(self, count: int, timeout: float | None = None) -> bool:
        """Block until `count` frames were published, or the source ended and drained."""
        source = self.source
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.engine.frames_published < count:
            if source is None:
                return False
            if source.finished and self.engine.frames_published >= source.frames_read:
                return False
            if self.engine.error is not None or source.error is not None:
                return False
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def wait_source_drained(self, timeout: float | None = None) -> bool:
        """Block until the source ended and every frame it read was published or dropped."""
        source = self.source
        deadline = None if timeout is None else time.monotonic() + timeout
        while source is not None:
            handled = self.engine.frames_published + self.engine.input.drops
            if source.finished and handled >= source.frames_read:
                return True
            if self.engine.error is not None or not self.engine.alive:
                return False
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return False
