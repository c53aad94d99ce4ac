"""The output guard: a frame the swap missed never reaches an output.

It sits between the engine and the outputs' delay line, so the virtual camera, the
stream and the recording all read what it lets through (the preview reads the engine
and may show the raw frame, marked as such). For each packet the engine published it
reads `packet.check` (engine.runtime.swap_check) and hands on:

- a swapped frame, as it is — and remembers it;
- for a miss (face lost, no face found, a stage failed, swapping off, no source face),
  the last swapped frame while it is at most `output.hold_ms` older (by capture time)
  than this one, so a one-frame dropout goes unnoticed;
- after that, the cover `output.on_face_lost` names: the frame blurred or pixelated
  (whole, or only the faces it can locate — the whole frame where it locates none) or
  a placeholder card;
- while the face stages are not running yet ("starting"), the placeholder card: the
  outputs start showing the camera only once the swapper is ready.

`on_face_lost = "off"` switches the guard off: every frame goes out as the engine made
it. Every frame handed on, whatever was decided, gets the invisible watermark and (with
`output.synthetic_label`) the "SYNTHETIC" label here (engine.outputs.stamp). Runs on the
engine thread, after each publish; a swapped frame costs the watermark (docs/watermark.md:
1.1-1.5 ms at 1280×720 inside the running pipeline), a cover about a millisecond more.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.core.listeners import Publisher
from engine.core.packet import FramePacket, GuardDecision, SwapCheck, SwapMiss
from engine.core.settings import OutputSettings
from engine.core.types import Frame
from engine.outputs.base import FrameFeed
from engine.outputs.cover import CoverKind, cover_boxes, cover_frame, placeholder_card
from engine.outputs.stamp import Stamp

_NOT_PROCESSED = SwapCheck(False, "starting")


def is_image(frame: object) -> bool:
    return (
        isinstance(frame, np.ndarray)
        and frame.dtype == np.uint8
        and frame.ndim == 3
        and frame.shape[2] == 3
        and min(frame.shape[:2]) > 0
    )


def card_for(size: tuple[int, int], miss: SwapMiss | None) -> Frame:
    """The placeholder card of `size` (width, height) for a miss (ASCII: OpenCV's fonts)."""
    if miss == "starting":
        return placeholder_card(size, "Starting...", "the face swap is loading")
    return placeholder_card(size, "Be right back")


@dataclass(frozen=True, slots=True)
class GuardStatus:
    decision: GuardDecision | None  # for the last frame handed on; None before the first
    miss: SwapMiss | None  # why, when it was not a swapped frame
    counts: dict[GuardDecision, int]
    cost_ms: float  # the last frame's guard time


class OutputGuard(Publisher):
    """A `FrameFeed` over the engine that only hands on swapped frames (or their covers).

    `settings` is read once per frame (the engine's current output settings)."""

    def __init__(self, feed: FrameFeed, settings: Callable[[], OutputSettings]) -> None:
        self.feed = feed
        self._settings = settings
        Publisher.__init__(self, "guarded-frame")
        self._lock = threading.Lock()  # start/stop from any thread
        self._subscribed = False
        self._good: FramePacket | None = None  # the last swapped packet
        self._last: tuple[GuardDecision, SwapMiss | None] | None = None
        self._counts: dict[GuardDecision, int] = dict.fromkeys(
            ("swapped", "held", "covered", "card", "raw"), 0
        )
        self._cost_ms = 0.0
        self.stamp = Stamp()

    # --- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        with self._lock:
            if not self._subscribed:  # twice would hand every frame on twice
                self.feed.add_listener(self.offer)
                self._subscribed = True

    def stop(self) -> None:
        with self._lock:
            self.feed.remove_listener(self.offer)
            self._subscribed = False

    def status(self) -> GuardStatus:
        last = self._last
        return GuardStatus(
            last[0] if last else None,
            last[1] if last else None,
            dict(self._counts),
            self._cost_ms,
        )

    # --- frames -------------------------------------------------------------------------
    def offer(self, packet: FramePacket) -> None:
        """Engine thread: guard one published packet and hand the result on. A frame that
        is not an image (a broken source) is not handed on: the outputs keep the last."""
        if not is_image(packet.frame):
            return
        started = time.perf_counter_ns()
        guarded = self.guard(packet, self._settings())
        self.published.publish(guarded)
        self._cost_ms = (time.perf_counter_ns() - started) / 1e6
        self._listeners.notify(guarded)

    def guard(self, packet: FramePacket, settings: OutputSettings) -> FramePacket:
        """The packet the outputs get for `packet` (a new one; `packet` is not changed)."""
        check = packet.check or _NOT_PROCESSED
        decision, frame = self._decide(packet, check, settings)
        frame = self.stamp.apply(frame, settings.synthetic_label)  # a new array
        frame.flags.writeable = False
        self._counts[decision] += 1
        self._last = (decision, check.miss)
        return FramePacket(
            packet.frame_id,
            packet.capture_ns,
            packet.frame,
            output=frame,
            faces=packet.faces,
            timings_ms=packet.timings_ms,
            published_ns=packet.published_ns,
            processing_ms=packet.processing_ms,
            guard=decision,
            error=packet.error,
            check=check,
        )

    def _decide(
        self, packet: FramePacket, check: SwapCheck, settings: OutputSettings
    ) -> tuple[GuardDecision, Frame]:
        action = settings.on_face_lost
        if action == "off":
            return "raw", packet.result
        if check.swapped:
            self._good = packet
            return "swapped", packet.result
        good = self._good
        if good is not None and self._holds(good, packet, settings.hold_ms):
            return "held", good.result
        if check.miss == "starting" or action == "card":
            height, width = packet.frame.shape[:2]
            return "card", card_for((width, height), check.miss)
        kind: CoverKind = "blur" if action in ("blur", "blur-face") else "pixelate"
        if action in ("blur-face", "pixelate-face") and check.exposed:
            return "covered", cover_boxes(packet.result, check.exposed, kind)
        return "covered", cover_frame(packet.result, kind)

    @staticmethod
    def _holds(good: FramePacket, packet: FramePacket, hold_ms: int) -> bool:
        """The last swapped frame may stand in: recent, and of the same size (a new
        source of another size is not the same scene)."""
        age_ns = packet.capture_ns - good.capture_ns
        return 0 <= age_ns <= hold_ms * 1_000_000 and good.result.shape == packet.frame.shape
