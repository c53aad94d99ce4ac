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

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.threads import Worker
from engine.models.onnx import ModelLoadError
from engine.stages.base import Stage
from engine.swap.internal_scale import render_scaled

log = logging.getLogger(__name__)

_PREPARE_TIMEOUT_S = 120.0  # a 500 MB model on a slow disk

StageBuilder = Callable[[EngineSettings], Stage]


class _LoadWorker(Worker):
    def __init__(self, name: str, build: Callable[[], Stage]) -> None:
        super().__init__(name)
        self._build = build
        self.result: Stage | None = None

    def _run(self) -> None:
        try:
            self.result = self._build()
        except ModelLoadError as exc:
            # Expected (model not downloaded, corrupt): a reason for the user, no traceback.
            self.error = exc


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

    def wait(self, key: Hashable, settings: EngineSettings, timeout: float) -> str | None:
        """Load now and block until done; None when ready, else why not."""
        self.get(key, settings)
        with self._lock:
            worker = self._worker
        assert worker is not None
        worker.join(timeout)
        return self.get(key, settings)[1]


class _Selector(Stage):
    """Built-in stage unless the settings ask for a neural one that has loaded. Its name
    ("swapper", "enhancer") also names the fallback reason, loader thread and log lines."""

    def __init__(self, builtin: Stage, neural: StageBuilder | None = None) -> None:
        self.builtin = builtin
        self._neural = BackgroundLoader(self.name, neural) if neural else None
        self._last_reason: str | None = None
        self._active: Stage = builtin  # the stage that processed the last frame

    def _wants_neural(self, settings: EngineSettings) -> bool:
        raise NotImplementedError

    def prepare(self, settings: EngineSettings) -> None:
        """Offline use: load the neural model the settings ask for before the first frame
        (a still image has no "later frame" to switch on); ModelLoadError says why not."""
        if self._neural is None or not self._wants_neural(settings):
            return
        reason = self._neural.wait(settings.models, settings, _PREPARE_TIMEOUT_S)
        if reason is not None:
            raise ModelLoadError(reason)

    def close(self, timeout: float = 2.0) -> None:
        """Join a model load still in flight and the built-in stage's threads (called at
        shutdown)."""
        if self._neural is not None:
            self._neural.stop(timeout)
        self.builtin.close(timeout)

    def providers(self) -> tuple[str, ...]:
        """The providers of the stage that ran last: the neural one once it is in use."""
        return self._active.providers()

    def _run(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        stage = self._choose(packet, settings)
        self._active = stage
        return stage.process(packet, settings)

    def _choose(self, packet: FramePacket, settings: EngineSettings) -> Stage:
        if self._neural is None or not self._wants_neural(settings):
            return self.builtin
        stage, reason = self._neural.get(settings.models, settings)
        if stage is not None:
            return stage
        packet.info[f"{self.name}_fallback"] = reason
        if reason != self._last_reason:
            self._last_reason = reason
            log.warning("neural %s unavailable (%s); using the built-in one", self.name, reason)
        return self.builtin


class SwapperSelector(_Selector):
    """`settings.swap.swapper`: "builtin" or a neural family ("inswapper"), rendered at
    `settings.quality.internal_scale` (the governor's last rungs)."""

    name: ClassVar[str] = "swapper"

    def _wants_neural(self, settings: EngineSettings) -> bool:
        return settings.swap.swapper != "builtin"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if not settings.swap.enabled or not packet.faces:
            packet.skip(self.name, "off" if not settings.swap.enabled else "no face")
            return packet
        return render_scaled(self._run, packet, settings)


class EnhancerSelector(_Selector):
    """`settings.enhancer.mode`: "off", "builtin" or "neural" (falls back to built-in)."""

    name: ClassVar[str] = "enhancer"

    def _wants_neural(self, settings: EngineSettings) -> bool:
        return settings.enhancer.mode == "neural"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if settings.enhancer.mode == "off":
            packet.skip(self.name, "off")
            return packet
        return self._run(packet, settings)
