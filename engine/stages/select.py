"""Stages that pick their implementation per frame from the settings.

Neural models load in the background the first time they are asked for (a 500 MB
swapper takes seconds); until then, or when a model is missing, the built-in stage keeps
the stream running and the packet says why (`info["<stage>_fallback"]`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from typing import ClassVar

from engine.packet import FramePacket
from engine.settings import EngineSettings
from engine.stages.base import Stage
from engine.threads import Worker

log = logging.getLogger(__name__)

StageBuilder = Callable[[EngineSettings], Stage]


class _LoadWorker(Worker):
    def __init__(self, name: str, build: Callable[[], Stage]) -> None:
        super().__init__(name)
        self._build = build
        self.result: Stage | None = None

    def _run(self) -> None:
        self.result = self._build()


class BackgroundLoader:
    """Builds a stage once per configuration key on a named background thread."""

    def __init__(self, name: str, build: StageBuilder) -> None:
        self.name = name
        self._build = build
        self._lock = threading.Lock()
        self._key: Hashable | None = None
        self._worker: _LoadWorker | None = None

    def get(self, key: Hashable, settings: EngineSettings) -> tuple[Stage | None, str | None]:
        """(stage, None) when ready; (None, reason) while loading or after a failure."""
        with self._lock:
            if key != self._key or self._worker is None:
                self._key = key
                self._worker = _LoadWorker(f"load-{self.name}", lambda: self._build(settings))
                self._worker.start()
            worker = self._worker
        if worker.result is not None:
            return worker.result, None
        if worker.error is not None:
            return None, str(worker.error)
        return None, f"{self.name} model is loading"

    def stop(self, timeout: float = 2.0) -> None:
        if self._worker is not None:
            self._worker.stop(timeout)


class SwapperSelector:
    """`settings.swap.swapper`: "builtin" or a neural family ("inswapper")."""

    name: ClassVar[str] = "swapper"

    def __init__(self, builtin: Stage, neural: StageBuilder | None = None) -> None:
        self.builtin = builtin
        self._neural = BackgroundLoader("swapper", neural) if neural else None
        self._last_reason: str | None = None

    @property
    def providers(self) -> tuple[str, ...]:
        return tuple(getattr(self.builtin, "providers", ()))

    def stop(self, timeout: float = 2.0) -> None:
        """Join a model load still in flight (called at shutdown)."""
        if self._neural is not None:
            self._neural.stop(timeout)

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if settings.swap.swapper == "builtin" or self._neural is None:
            return self.builtin.process(packet, settings)
        stage, reason = self._neural.get(settings.models, settings)
        if stage is not None:
            return stage.process(packet, settings)
        packet.info["swapper_fallback"] = reason
        if reason != self._last_reason:
            self._last_reason = reason
            log.warning("neural swapper unavailable (%s); using the built-in swapper", reason)
        return self.builtin.process(packet, settings)


class EnhancerSelector:
    """`settings.enhancer.mode`: "off", "builtin" or "neural" (falls back to built-in)."""

    name: ClassVar[str] = "enhancer"

    def __init__(self, builtin: Stage, neural: StageBuilder | None = None) -> None:
        self.builtin = builtin
        self._neural = BackgroundLoader("enhancer", neural) if neural else None
        self._last_reason: str | None = None

    def stop(self, timeout: float = 2.0) -> None:
        """Join a model load still in flight (called at shutdown)."""
        if self._neural is not None:
            self._neural.stop(timeout)

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        mode = settings.enhancer.mode
        if mode == "off":
            return packet
        if mode == "builtin" or self._neural is None:
            return self.builtin.process(packet, settings)
        stage, reason = self._neural.get(settings.models, settings)
        if stage is not None:
            return stage.process(packet, settings)
        packet.info["enhancer_fallback"] = reason
        if reason != self._last_reason:
            self._last_reason = reason
            log.warning("neural enhancer unavailable (%s); using the built-in one", reason)
        return self.builtin.process(packet, settings)
