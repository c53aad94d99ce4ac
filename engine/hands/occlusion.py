"""Hands in front of a face: the bundled hand models as one tracker, and each hand's mask
added to the face patches' keep masks (target pixels the compositor leaves alone)."""

from __future__ import annotations

import numpy as np

from engine.core.face_records import FacePatch
from engine.core.paths import MODELS_DIR
from engine.core.settings import ExecutionProvider, HandSettings
from engine.core.types import F32, Mask
from engine.hands.landmarks import HandLandmarker
from engine.hands.mask import hand_mask
from engine.hands.palm import PalmDetector
from engine.hands.tracker import HandTracker, HandTrackingOptions
from engine.models.onnx import load_model


def load_hand_tracker(provider: ExecutionProvider = "auto") -> HandTracker:
    """The bundled palm detector and hand landmark model; ModelLoadError if not."""
    palm = load_model(MODELS_DIR / "palm_detection.onnx", name="palm_detection", provider=provider)
    hand = load_model(MODELS_DIR / "hand_landmark.onnx", name="hand_landmark", provider=provider)
    return HandTracker(PalmDetector(palm), HandLandmarker(hand))


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
