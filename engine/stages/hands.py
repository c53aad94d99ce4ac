"""Hand occlusion stage: hands in front of a face stay visible.

It runs after the swapper and enhancer and before the compositor: each hand's mask is
OR-ed into the face patches' `keep_mask` (target pixels to keep), so the compositor
leaves the hand as the camera saw it. The models run only while some face has a patch.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from engine.core.packet import FramePacket
from engine.core.paths import MODELS_DIR
from engine.core.settings import EngineSettings, ExecutionProvider, HandSettings
from engine.core.types import F32, Mask
from engine.face.analyzer import usable_frame
from engine.face.records import FacePatch
from engine.hands.landmarks import HandLandmarker
from engine.hands.mask import hand_mask
from engine.hands.palm import PalmDetector
from engine.hands.tracker import HandTracker, HandTrackingOptions
from engine.models.onnx import load_model
from engine.stages.base import Stage


def options_of(hands: HandSettings) -> HandTrackingOptions:
    return HandTrackingOptions(
        every_n=hands.every_n,
        max_hands=hands.max_hands,
        score_threshold=hands.score_threshold,
        presence_threshold=hands.presence_threshold,
    )


def keep_hands(patch: FacePatch, hands: list[F32], grow: float) -> Mask | None:
    """Add the hands to the patch's keep mask; returns the hand mask, None if no overlap."""
    # Drawn on the patch's own grid (it may be coarser than the frame's).
    in_patch = [np.column_stack([patch.to_patch(h[:, :2]), h[:, 2:]]) for h in hands]
    mask = hand_mask(in_patch, patch.shape, (0, 0), grow)
    if not mask.any():
        return None
    patch.keep_mask = mask if patch.keep_mask is None else np.maximum(patch.keep_mask, mask)
    return mask


class HandStage(Stage):
    name: ClassVar[str] = "hands"

    def __init__(
        self,
        detector: PalmDetector | None = None,
        landmarker: HandLandmarker | None = None,
        provider: ExecutionProvider = "auto",
    ) -> None:
        """With no models given, the bundled ones load on first use: most sessions never
        turn hand occlusion on and should not pay for two more model sessions."""
        self._provider = provider
        self._tracker = (
            HandTracker(detector, landmarker)
            if detector is not None and landmarker is not None
            else None
        )

    @classmethod
    def bundled(cls, provider: ExecutionProvider = "auto") -> HandStage:
        stage = cls(provider=provider)
        stage._load()
        return stage

    def _load(self) -> HandTracker:
        if self._tracker is None:
            palm = load_model(
                MODELS_DIR / "palm_detection.onnx", name="palm_detection", provider=self._provider
            )
            hand = load_model(
                MODELS_DIR / "hand_landmark.onnx", name="hand_landmark", provider=self._provider
            )
            self._tracker = HandTracker(PalmDetector(palm), HandLandmarker(hand))
        return self._tracker

    @property
    def tracker(self) -> HandTracker:
        return self._load()

    def prepare(self, settings: EngineSettings) -> None:
        if settings.hands.enabled:
            self._load()

    def providers(self) -> tuple[str, ...]:
        if self._tracker is None:
            return ()
        models = (self._tracker.detector.model, self._tracker.landmarker.model)
        return tuple(dict.fromkeys(m.providers[0] for m in models))

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        hands_settings = settings.hands
        patches = [f.patch for f in packet.faces if f.patch is not None]
        if not hands_settings.enabled or not patches or not usable_frame(packet.frame):
            # Nothing to protect: the models do not run, and stale tracks are dropped.
            if self._tracker is not None:
                self._tracker.reset()
            packet.skip(self.name, "off" if not hands_settings.enabled else "no face")
            return packet
        # Palms are searched in the whole frame, as MediaPipe does: a crop around the
        # faces was tried and found hands less reliably (the detector uses the arm).
        hands = self.tracker.step(packet.frame, options_of(hands_settings), packet.steps)
        covered = 0
        with packet.step("mask"):
            for patch in patches:
                if hands and keep_hands(patch, hands, hands_settings.grow) is not None:
                    covered += 1
        packet.info["hands"] = {"found": len(hands), "over_faces": covered}
        if hands:
            packet.info["hand_landmarks"] = hands
        return packet
