"""Hands from frame to frame: the palm detector runs every few frames, and in between
each hand's crop comes from its previous landmarks (as MediaPipe's hand tracking does).

A hand entering the picture is therefore found within `every_n` frames; a tracked hand
is followed on every frame by the (cheaper) landmark model alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import F32, Frame
from engine.face.roi import Roi, box_iou
from engine.hands.landmarks import HandLandmarker, roi_from_hand_landmarks
from engine.hands.palm import PalmDetector, palm_roi

_SAME_HAND_IOU = 0.4  # a palm this close to a tracked hand is that hand


@dataclass(slots=True)
class HandTrack:
    roi: Roi
    landmarks: F32 | None = None
    presence: float = 0.0


@dataclass(frozen=True, slots=True)
class HandTrackingOptions:
    every_n: int = 3
    max_hands: int = 2
    score_threshold: float = 0.5
    presence_threshold: float = 0.5


class HandTracker:
    def __init__(self, detector: PalmDetector, landmarker: HandLandmarker) -> None:
        self.detector = detector
        self.landmarker = landmarker
        self.tracks: list[HandTrack] = []
        self._since_detect: int | None = None  # None: never ran (or reset)
        self.detections_run = 0
        self.landmarks_run = 0

    def reset(self) -> None:
        self.tracks.clear()
        self._since_detect = None

    def _wants_detection(self, options: HandTrackingOptions) -> bool:
        if len(self.tracks) >= options.max_hands:
            return False  # MediaPipe's rule too: all hands found, only track them
        return self._since_detect is None or self._since_detect >= options.every_n

    def step(
        self, frame: Frame, options: HandTrackingOptions, steps: StepTimer = NO_STEPS
    ) -> list[F32]:
        """Landmarks (21×3 frame pixels) of every hand in this frame."""
        if self._since_detect is not None:
            self._since_detect += 1
        if self._wants_detection(options):
            with steps.step("palm"):
                self._add_palms(frame, options)
            self._since_detect = 0
        kept: list[HandTrack] = []
        for track in self.tracks:
            with steps.step("landmarks"):
                result = self.landmarker.run(frame, track.roi)
            self.landmarks_run += 1
            if result.presence < options.presence_threshold:
                continue
            track.landmarks = result.landmarks
            track.presence = result.presence
            track.roi = roi_from_hand_landmarks(result.landmarks)
            # Two tracks that converged on one hand (a palm found twice): keep the first.
            if any(box_iou(track.roi.box(), k.roi.box()) > _SAME_HAND_IOU for k in kept):
                continue
            kept.append(track)
        self.tracks = kept
        return [t.landmarks for t in kept if t.landmarks is not None]

    def _add_palms(self, frame: Frame, options: HandTrackingOptions) -> None:
        self.detections_run += 1
        palms = self.detector.detect(frame, options.score_threshold)
        for palm in sorted(palms, key=lambda p: -p.score):
            if len(self.tracks) >= options.max_hands:
                break
            roi = palm_roi(palm)
            if any(box_iou(roi.box(), t.roi.box()) > _SAME_HAND_IOU for t in self.tracks):
                continue
            self.tracks.append(HandTrack(roi))
