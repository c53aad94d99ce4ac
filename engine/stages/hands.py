"""Hand occlusion stage: hands in front of a face stay visible (engine/hands/occlusion.py).

It runs after the swapper and enhancer and before the compositor: each hand's mask is
OR-ed into the face patches' `keep_mask` (target pixels to keep), so the compositor
leaves the hand as the camera saw it. The models run only while some face has a patch.
They load in the background the first time hands are turned on (most sessions never
turn hand occlusion on and should not pay for two more model sessions); until then the
stage passes frames through with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engine.core.packet import FramePacket, HandsSeen
from engine.core.settings import EngineSettings, ExecutionProvider
from engine.face.analyzer import usable_frame
from engine.hands.occlusion import keep_hands, load_hand_tracker, options_of
from engine.hands.tracker import HandTracker
from engine.models.onnx import ModelLoadError
from engine.stages.base import Stage
from engine.stages.loader import BackgroundLoader

_PREPARE_TIMEOUT_S = 30.0  # two small bundled models


class HandStage(Stage):
    name: ClassVar[str] = "hands"

    def __init__(
        self,
        provider: ExecutionProvider = "auto",
        load: Callable[[ExecutionProvider], HandTracker] = load_hand_tracker,
    ) -> None:
        """`load` builds the tracker on the loader thread (the bundled models)."""
        self._provider = provider
        self._loader: BackgroundLoader[HandTracker] = BackgroundLoader(
            self.name, lambda _settings: load(provider)
        )
        self._tracker: HandTracker | None = None

    @classmethod
    def bundled(cls, provider: ExecutionProvider = "auto") -> HandStage:
        """A stage whose models are loaded now (tests, tools)."""
        stage = cls(provider)
        stage._tracker = load_hand_tracker(provider)
        return stage

    @property
    def tracker(self) -> HandTracker | None:
        """The hand tracker once its models have loaded."""
        return self._tracker

    def prepare(self, settings: EngineSettings) -> None:
        if settings.hands.enabled and self._tracker is None:
            reason = self._loader.wait(self._provider, settings, _PREPARE_TIMEOUT_S)
            if reason is not None:
                raise ModelLoadError(reason)
            self._loaded(settings)

    def close(self, timeout: float = 2.0) -> None:
        self._loader.stop(timeout)

    def providers(self) -> tuple[str, ...]:
        if self._tracker is None:
            return ()
        models = (self._tracker.detector.model, self._tracker.landmarker.model)
        return tuple(dict.fromkeys(p for m in models for p in m.providers))

    def _loaded(self, settings: EngineSettings) -> HandTracker | str:
        """The tracker once its models have loaded, else why not (loading, failed)."""
        if self._tracker is None:
            self._tracker, reason = self._loader.get(self._provider, settings)
            if self._tracker is None:
                return reason or f"{self.name} model is loading"
        return self._tracker

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        hands_settings = settings.hands
        patches = [f.patch for f in packet.faces if f.patch is not None]
        if not hands_settings.enabled or not patches or not usable_frame(packet.frame):
            # Nothing to protect: the models do not run, and stale tracks are dropped.
            if self._tracker is not None:
                self._tracker.reset()
            packet.skip(self.name, "off" if not hands_settings.enabled else "no face")
            return packet
        tracker = self._loaded(settings)
        if isinstance(tracker, str):
            packet.skip(self.name, tracker)
            return packet
        # Palms are searched in the whole frame, as MediaPipe does: a crop around the
        # faces was tried and found hands less reliably (the detector uses the arm).
        hands = tracker.step(packet.frame, options_of(hands_settings), packet.steps)
        covered = 0
        with packet.step("mask"):
            for patch in patches:
                if hands and keep_hands(patch, hands, hands_settings.grow) is not None:
                    covered += 1
        packet.hands = HandsSeen(found=len(hands), over_faces=covered)
        return packet
