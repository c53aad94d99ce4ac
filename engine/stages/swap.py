"""Swapper stage: renders the active source identity over each selected face."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.core.background import BackgroundJob
from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.stages.base import Stage
from engine.swap.assign import assign_sources
from engine.swap.library import SourceLibrary
from engine.swap.renderer import FaceRenderer
from engine.swap.sharpness import DetailSample
from engine.swap.target_memory import TargetMemory

# How fast a tracked face's rest shape follows it: slow enough that a held smile or a
# raised brow stays expression (kept) rather than becoming "shape" (replaced).
_REST_RATE = 0.02


# The target's detail level changes slowly (focus, distance): re-measure this often.
_DETAIL_EVERY = 15


@dataclass(slots=True)
class _TrackState:
    rest: np.ndarray  # the face's slowly updated rest shape (canonical units)
    source_key: str = ""
    detail_sigma: float | None = None
    detail_age: int = 0
    # Its own light and beard, each measured every second frame (target_memory.py).
    memory: TargetMemory = field(default_factory=TargetMemory)


@dataclass(frozen=True, slots=True)
class _DetailJob:
    track_id: int
    source_key: str
    sample: DetailSample


def _measure(job: _DetailJob) -> float:
    return job.sample.measure()


class SwapStage(Stage):
    name: ClassVar[str] = "builtin_swapper"

    def __init__(self, library: SourceLibrary, renderer: FaceRenderer | None = None) -> None:
        self.library = library
        self.renderer = renderer or FaceRenderer()
        self._tracks: dict[int, _TrackState] = {}
        # Live, the periodic detail re-measure runs here and joins a later frame (it
        # cost its frame 1.5 ms); offline it stays in place, so output is reproducible.
        self._detail: BackgroundJob[_DetailJob, float] = BackgroundJob("detail-measure", _measure)

    def close(self, timeout: float = 2.0) -> None:
        self._detail.stop(timeout)

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        # "Swap off" is the selector's to decide (engine/stages/select.py).
        self._take_detail(packet)
        seen = set()
        with packet.step("assign"):
            assigned = assign_sources(packet.faces, settings.swap)
        for face, key in assigned:
            with packet.step("assign"):
                identity = self.library.get(key)
                if identity is None or face.fit is None:
                    continue
                seen.add(face.track_id)
                state = self._update_track(face, identity.key, packet.live)
            due = state.detail_sigma is not None and state.detail_age >= _DETAIL_EVERY
            face.patch = self.renderer.render(
                packet.frame,
                face,
                identity,
                settings.swap,
                color_match=settings.compositor.color_match,
                rest_canonical=state.rest,
                blur_sigma=state.detail_sigma,
                steps=packet.steps,
                on_detail=self._submit_detail(face.track_id, identity.key) if due else None,
                memory=state.memory,
            )
            if face.patch is not None and state.detail_sigma is None:
                state.detail_sigma = face.patch.detail_sigma
        for track_id in set(self._tracks) - seen:
            del self._tracks[track_id]
        return packet

    def _submit_detail(self, track_id: int, source_key: str) -> Callable[[DetailSample], None]:
        def submit(sample: DetailSample) -> None:
            if self._detail.submit(_DetailJob(track_id, source_key, sample)):
                self._tracks[track_id].detail_age = 0  # else: try again next frame

        return submit

    def _take_detail(self, packet: FramePacket) -> None:
        """A finished re-measure updates its face, unless the face or its source changed."""
        result = self._detail.take()
        if result is None:
            return
        packet.steps.add_background("detail", result.elapsed_ms, result.cpu_ms)
        state = self._tracks.get(result.job.track_id)
        if state is not None and state.source_key == result.job.source_key:
            state.detail_sigma = result.value

    def _update_track(self, face: Face, source_key: str, live: bool) -> _TrackState:
        assert face.fit is not None
        current = face.fit.canonical_landmarks
        state = self._tracks.get(face.track_id)
        if state is None:
            state = self._tracks[face.track_id] = _TrackState(current.copy())
        else:
            state.rest += _REST_RATE * (current - state.rest)
        state.detail_age += 1
        # A new source is measured on this frame. So is a due re-measure offline; live,
        # it runs in the background (the render hands it over) and this frame keeps
        # the last value.
        if state.source_key != source_key or (state.detail_age >= _DETAIL_EVERY and not live):
            state.source_key, state.detail_sigma, state.detail_age = source_key, None, 0
        return state
