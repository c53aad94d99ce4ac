"""Tracks faces from frame to frame: the next crop comes from the last landmarks.

Detection runs only when no face is tracked, a track was just lost, or every
`redetect_every` frames (to pick up faces that enter), as MediaPipe's graphs do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.core.face_records import Detection
from engine.core.settings import DetectionSettings, TrackingSettings
from engine.core.types import Landmarks
from engine.face.detector import main_face_index
from engine.face.one_euro import OneEuroFilter
from engine.face.roi import Roi, box_iou, roi_from_detection, roi_from_landmarks

_MATCH_IOU = 0.3  # a detection this close to a track is the same face


@dataclass(slots=True)
class Track:
    track_id: int
    roi: Roi
    detection: Detection | None
    landmarks: Landmarks | None = None
    presence: float = 0.0
    velocity: tuple[float, float] = (0.0, 0.0)  # ROI centre, pixels per frame
    filter: OneEuroFilter = field(default_factory=lambda: OneEuroFilter(1.0, 1.0))


class FaceTracker:
    def __init__(self) -> None:
        self.tracks: list[Track] = []
        self._next_id = 0
        self._since_detect = 0
        self._lost = False
        self.detections_run = 0
        self.frames = 0
        # Bumped whenever the tracks change wholesale (a detection, a reset): a detection
        # started before that (in the background) describes a world that is gone.
        self.epoch = 0

    def reset(self) -> None:
        self.tracks.clear()
        self._since_detect = 0
        self._lost = False
        self.epoch += 1

    def needs_detection(self, settings: DetectionSettings) -> bool:
        return not self.tracks or self._lost or self._since_detect >= settings.redetect_every

    @property
    def tracking(self) -> bool:
        """Every face is followed: a detection now would only look for new ones."""
        return bool(self.tracks) and not self._lost

    def refresh_started(self) -> None:
        """A detection runs elsewhere on this frame: the next one is due a period later."""
        self._since_detect = 0

    def begin_frame(self) -> None:
        self.frames += 1
        self._since_detect += 1

    def add_detections(
        self,
        detections: list[Detection],
        frame_size: tuple[int, int],
        detection: DetectionSettings,
        tracking: TrackingSettings,
    ) -> None:
        """Start tracks for new faces; faces already tracked keep their landmark ROI."""
        self.detections_run += 1
        self.epoch += 1
        self._since_detect = 0
        self._lost = False
        # A track keeps a detection only from the frame that found it: an old box would
        # sit where the face was, not where it is.
        for t in self.tracks:
            t.detection = None
        if not detections:
            return
        main = main_face_index(detections, frame_size)
        ordered = [detections[main]] + [d for i, d in enumerate(detections) if i != main]
        for det in ordered:
            match = next(
                (t for t in self.tracks if box_iou(det.box, t.roi.box()) > _MATCH_IOU), None
            )
            if match is not None:
                if match.detection is None:  # the best (main-first) detection wins
                    match.detection = det
                continue
            if len(self.tracks) >= detection.max_faces:
                break
            track = Track(self._next_id, roi_from_detection(det), det)
            track.filter = OneEuroFilter(tracking.min_cutoff_hz, tracking.beta)
            self._next_id += 1
            self.tracks.append(track)

    def predicted_roi(self, track: Track) -> Roi:
        """Where to look this frame: the last ROI moved on by the last motion."""
        vx, vy = track.velocity
        r = track.roi
        return Roi(r.cx + vx, r.cy + vy, r.size, r.angle)

    def update(
        self,
        track: Track,
        landmarks: Landmarks,
        presence: float,
        t_s: float,
        tracking: TrackingSettings,
    ) -> Landmarks:
        """Accept new landmarks for a track; returns them smoothed when smoothing is on."""
        raw_roi = roi_from_landmarks(landmarks)
        if track.landmarks is not None:
            track.velocity = (raw_roi.cx - track.roi.cx, raw_roi.cy - track.roi.cy)
        track.filter.min_cutoff_hz = tracking.min_cutoff_hz
        track.filter.beta = tracking.beta
        if tracking.smoothing:
            smoothed = track.filter(landmarks, t_s, scale=raw_roi.size).astype(np.float32)
        else:
            track.filter.reset()
            smoothed = landmarks
        track.roi = raw_roi  # the crop follows the raw face, not the lagging filter
        track.landmarks = smoothed
        track.presence = presence
        return smoothed

    def drop(self, track: Track) -> None:
        self.tracks = [t for t in self.tracks if t.track_id != track.track_id]
        self._lost = True
