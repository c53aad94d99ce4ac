"""A live session: one source feeding one engine feeding any number of sinks."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from engine.core.threads import Worker
from engine.runtime.pipeline import Engine
from engine.sources.base import FrameSource

log = logging.getLogger(__name__)


class Session:
    """Starts the parts consumer-first and stops them in the documented order:
    source, engine, sinks — so no part is left waiting on one that already stopped."""

    def __init__(self, source: FrameSource, engine: Engine, sinks: Sequence[Worker] = ()) -> None:
        self.source = source
        self.engine = engine
        self.sinks = list(sinks)
        source.bind(engine.input)

    def start(self) -> None:
        if self.source.info is None:
            self.source.open()
        for sink in self.sinks:
            sink.start()
        self.engine.start()
        self.source.start()

    def add_sink(self, sink: Worker) -> None:
        self.sinks.append(sink)
        if self.engine.alive:
            sink.start()

    def remove_sink(self, sink: Worker, timeout: float = 2.0) -> None:
        if sink in self.sinks:
            self.sinks.remove(sink)
        sink.stop(timeout)

    def wait_frames(self, count: int, timeout: float | None = None) -> bool:
        """Block until `count` frames were published, or the source ended and drained."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.engine.frames_published < count:
            if self.source.finished and self.engine.frames_published >= self.source.frames_read:
                return False
            if self.engine.error is not None or self.source.error is not None:
                return False
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def wait_source_drained(self, timeout: float | None = None) -> bool:
        """Block until the source ended and every frame it read was published or dropped."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            handled = self.engine.frames_published + self.engine.input.drops
            if self.source.finished and handled >= self.source.frames_read:
                return True
            if self.engine.error is not None or not self.engine.alive:
                return False
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.01)

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop everything; True when every thread ended within `timeout` each."""
        ok = self.source.stop(timeout)
        ok = self.engine.stop(timeout) and ok
        for sink in self.sinks:
            ok = sink.stop(timeout) and ok
        if not ok:
            log.warning("some threads did not stop within %.1f s", timeout)
        return ok


class LiveSession:
    """Engine + current source + sinks; stop order: source, engine, sinks (DESIGN.md)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.source: FrameSource | None = None
        self.sinks: list[Worker] = []
        self.switches = 0

    def start(self) -> None:
        self.engine.start()

    def switch_source(self, source: FrameSource, timeout: float = 1.0) -> None:
        """Replace the running source with an opened one; the engine keeps running."""
        old = self.source
        if old is not None:
            old.on_end = None
            old.stop(timeout)
        source.bind(self.engine.input)
        self.source = source
        self.switches += 1
        source.start()

    def add_sink(self, sink: Worker) -> None:
        self.sinks.append(sink)
        sink.start()

    def remove_sink(self, sink: Worker, timeout: float = 2.0) -> bool:
        if sink in self.sinks:
            self.sinks.remove(sink)
        return sink.stop(timeout)

    def threads(self) -> list[Worker]:
        parts: list[Worker] = [self.engine, *self.sinks]
        if self.source is not None:
            parts.insert(0, self.source)
        return parts

    def stop(self, timeout: float = 0.3) -> bool:
        ok = True
        for part in self.threads():
            ok = part.stop(timeout) and ok
        return ok
