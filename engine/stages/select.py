"""Stages that pick their implementation per frame from the settings.

Neural models load in the background the first time they are asked for (a 500 MB
swapper takes seconds); until then, or when a model is missing, the built-in stage keeps
the stream running and the packet says why (`packet.fallbacks[<stage>]`).
"""

from __future__ import annotations

import dataclasses
import logging
from abc import abstractmethod
from collections.abc import Callable
from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.models.onnx import ModelLoadError
from engine.stages.base import Stage
from engine.stages.loader import BackgroundLoader
from engine.swap.internal_scale import scale_faces

log = logging.getLogger(__name__)

_PREPARE_TIMEOUT_S = 120.0  # a 500 MB model on a slow disk

StageBuilder = Callable[[EngineSettings], Stage]


class _Selector(Stage):
    """Built-in stage unless the settings ask for a neural one that has loaded. Its name
    ("swapper", "enhancer") also names the fallback reason, loader thread and log lines.
    Abstract (Stage is an ABC): each selector says when its settings ask for the model."""

    def __init__(self, builtin: Stage, neural: StageBuilder | None = None) -> None:
        self.builtin = builtin
        self._neural: BackgroundLoader[Stage] | None = (
            BackgroundLoader(self.name, neural) if neural else None
        )
        self._last_reason: str | None = None
        self._active: Stage = builtin  # the stage that processed the last frame

    @abstractmethod
    def _wants_neural(self, settings: EngineSettings) -> bool:
        """True when these settings ask for the neural stage."""

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

    @property
    def active(self) -> Stage:
        """The stage that processed the last frame (the gallery's previews follow it)."""
        return self._active

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
        assert reason is not None  # get() gives a reason whenever it gives no stage
        packet.fallbacks[self.name] = reason
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
        # The one "swap off" check: the swappers behind it render whenever asked.
        if not settings.swap.enabled or not packet.faces:
            packet.skip(self.name, "off" if not settings.swap.enabled else "no face")
            return packet
        return self._render_scaled(packet, settings)

    def _render_scaled(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        """The chosen swapper at `settings.quality.internal_scale`, on the faces' region;
        transparent at scale 1, the default."""
        view = scale_faces(packet.frame, packet.faces, settings.quality.internal_scale)
        if view is None:
            return self._run(packet, settings)
        # The same packet on the smaller region: it shares the outer packet's timings,
        # skip reasons, fallbacks and steps, so whatever the swapper records there lands
        # on the packet the engine publishes (its scalar fields are copied back below).
        inner = dataclasses.replace(packet, frame=view.frame, faces=view.faces, output=None)
        self._run(inner, settings)
        view.paste_back(packet.faces)
        packet.neural_swap = inner.neural_swap  # the one field of its own a swapper sets
        packet.internal_scale = round(view.scale, 3)
        return packet


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
