"""Where a frame's faces come from and where they go next: the tracks followed from the
last frame's landmarks, or the detector. The one owner of the cross-frame face state
(the `FaceTracker`: tracks, their crops, smoothing filters, the detection schedule, the
background refresh); nothing outside this module reads or changes a track.

The face stage (engine/stages/faces.py) holds the finder and drives it through a frame.
It asks `find` first: detect here (no face tracked, a track lost, the periodic refresh
offline), start the periodic refresh on the background thread (live frames while every
face is tracked), or only track. Then, for each face `faces` lists, it asks `crop` where
to mesh it and hands the mesh back: `follow` (the track takes the landmarks, smoothed)
or `lose` (the face slipped out of its crop). When every tracked face was lost in a
frame nothing searched yet (a jump, a cut), it asks `search_again` rather than show the
unswapped face for a frame.

Why a stage holds this object rather than the packet carrying the tracks: the state
outlives a packet (a packet lives one frame, is dropped when a newer one overwrites it,
and the swapper's selector runs on a copy), and the search again changes it in the
middle of a frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.face_records import Detection, Face
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import EngineSettings
from engine.core.types import Frame, Landmarks
from engine.face.analyzer import FaceAnalyzer
from engine.face.background import BackgroundDetector, DetectionJob
from engine.face.roi import Roi, roi_from_detection
from engine.face.tracker import FaceTracker, Track

# The profile key of the refresh's time (`background/detect`): the face stage's "detect"
# step, done on another thread.
BACKGROUND_STEP = "detect"


@dataclass(frozen=True, slots=True)
class Crop:
    """Where the mesh looks for a tracked face in this frame."""

    roi: Roi
    # The track's first frame: the crop is the detector's box, looser than a mesh's,
    # so the face stage meshes again around what it found.
    first: bool


class FaceFinder:
    def __init__(self) -> None:
        self._tracker = FaceTracker()
        self._background: BackgroundDetector | None = None  # made on the first frame

    @property
    def tracks(self) -> tuple[Track, ...]:
        """The faces tracked now, to read (tests, tools): only the finder changes them."""
        return tuple(self._tracker.tracks)

    @property
    def detections_run(self) -> int:
        """Detections added to the tracks, here or from the background refresh."""
        return self._tracker.detections_run

    @property
    def refreshing(self) -> bool:
        """A detection started by a live frame is still running in the background."""
        return self._background is not None and self._background.busy

    def reset(self) -> None:
        """No picture this frame: every track ends."""
        self._tracker.reset()

    def stop(self, timeout: float = 2.0) -> None:
        if self._background is not None:
            self._background.stop(timeout)

    def find(
        self,
        analyzer: FaceAnalyzer,
        frame: Frame,
        settings: EngineSettings,
        *,
        live: bool,
        steps: StepTimer = NO_STEPS,
    ) -> bool:
        """Start a frame: take a finished background refresh, then detect here (True)
        or not (the faces come from the tracks, or the periodic refresh went to the
        background thread). Live frames may hand that refresh to the background;
        offline ones never do, so the same input always gives the same output."""
        if self._background is None:
            self._background = BackgroundDetector(analyzer)
        tracker = self._tracker
        tracker.begin_frame()
        self._take_background(frame, settings, steps)
        if not tracker.needs_detection(settings.detection):
            return False
        if live and tracker.tracking and self._start_background(frame, settings):
            return False
        with steps.step("detect"):
            detections = analyzer.detect(frame, settings.detection, steps)
        with steps.step("match"):
            self._add(detections, frame, settings)
        return True

    def faces(self, *, detected: bool) -> list[Face]:
        """The tracked faces, each with the box that found it when the detector ran this
        frame (between runs a box would be a stale one)."""
        return [Face(t.track_id, t.detection if detected else None) for t in self._tracker.tracks]

    def crop(self, face: Face) -> Crop | None:
        """Where to mesh `face` in this frame: around the box that found it on its
        track's first frame, else where the last landmarks say it moved. None: its
        track has ended."""
        track = self._track(face)
        if track is None:
            return None
        first = track.landmarks is None
        if first and track.detection:
            return Crop(roi_from_detection(track.detection), first)
        return Crop(self._tracker.predicted_roi(track), first)

    def follow(
        self,
        face: Face,
        landmarks: Landmarks,
        presence: float,
        t_s: float,
        settings: EngineSettings,
    ) -> Landmarks:
        """`face`'s track takes its mesh in this frame (the next crop follows it); the
        landmarks, smoothed when smoothing is on."""
        track = self._track(face)
        assert track is not None, "follow a face `crop` found"
        return self._tracker.update(track, landmarks, presence, t_s, settings.tracking)

    def lose(self, face: Face) -> None:
        """`face` slipped out of its crop: its track ends, and the next frame detects."""
        track = self._track(face)
        if track is not None:
            self._tracker.drop(track)

    def lost_all(self, kept: list[Face], *, searched: bool) -> bool:
        """Every tracked face was lost in this frame and nothing searched it yet
        (`searched`: `find` detected in this frame)."""
        return not kept and not self._tracker.tracks and not searched

    def search_again(
        self,
        analyzer: FaceAnalyzer,
        frame: Frame,
        settings: EngineSettings,
        steps: StepTimer = NO_STEPS,
    ) -> list[Face]:
        """Detect in this frame after every track was lost; the faces it found."""
        detections = analyzer.detect(frame, settings.detection, steps)
        self._add(detections, frame, settings)
        return self.faces(detected=True)

    def _track(self, face: Face) -> Track | None:
        return next((t for t in self._tracker.tracks if t.track_id == face.track_id), None)

    def _add(self, detections: list[Detection], frame: Frame, settings: EngineSettings) -> None:
        size = (frame.shape[1], frame.shape[0])
        self._tracker.add_detections(detections, size, settings.detection, settings.tracking)

    def _start_background(self, frame: Frame, settings: EngineSettings) -> bool:
        job = DetectionJob(frame, settings.detection, self._tracker.epoch)
        assert self._background is not None  # made before any frame is detected on
        if not self._background.submit(job):
            return False  # the last one is still running: detect here, as offline
        self._tracker.refresh_started()
        return True

    def _take_background(self, frame: Frame, settings: EngineSettings, steps: StepTimer) -> None:
        """Faces a finished background detection found, unless the tracks changed since
        it started (a detection here, a reset), the frame size or the settings did."""
        assert self._background is not None
        result = self._background.take()
        if result is None:
            return
        steps.add_background(BACKGROUND_STEP, result.elapsed_ms, result.cpu_ms)
        job = result.job
        if (
            job.epoch == self._tracker.epoch
            and job.settings == settings.detection
            and job.frame.shape == frame.shape
        ):
            self._add(result.value, job.frame, settings)
