"""A fixed output delay, so audio delayed by the same amount (in OBS) stays in sync.

`DelayLine` listens to the engine and republishes every frame into its own double
buffer once `delay_ms` have passed since the frame was *captured*. Measuring from
capture rather than from processing makes the output latency constant: frames that
took 30 ms or 45 ms to process both leave exactly `delay_ms` after the camera saw them,
so one audio delay of the same value matches every frame. A frame whose processing
already took longer than the delay leaves at once (counted in `late`).

Sinks (virtual camera, stream, recorder) read the delay line instead of the engine —
it offers the same `published` / `add_listener` interface (`FrameFeed`) — so they all see
one delayed timeline, while the GUI preview keeps reading the engine, live.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from engine.core.listeners import Publisher
from engine.core.packet import FramePacket
from engine.core.threads import ErrorCallback, Worker
from engine.outputs.base import FrameFeed

MAX_DELAY_MS = 1000
# 1 s at 240 fps: the backlog can never grow without bound, whatever the frame rate.
MAX_HELD = 240


def check_delay_ms(delay_ms: int) -> int:
    if not isinstance(delay_ms, int) or not 0 <= delay_ms <= MAX_DELAY_MS:
        raise ValueError(
            f"output delay must be a whole number of ms in 0..{MAX_DELAY_MS}, not {delay_ms!r}"
        )
    return delay_ms


class DelayLine(Worker, Publisher):
    """Holds published frames until `capture_ns + delay`, then republishes them in order.

    With a delay of 0 (and nothing held) a frame is republished at once on the engine
    thread, so the line costs nothing when unused and the delay can be changed live.
    """

    def __init__(
        self, feed: FrameFeed, delay_ms: int = 0, on_error: ErrorCallback | None = None
    ) -> None:
        super().__init__("output-delay", on_error)
        self.feed = feed
        self._delay_ns = check_delay_ms(delay_ms) * 1_000_000
        Publisher.__init__(self, "delayed-frame")
        # One lock orders the engine-thread fast path and the worker's releases.
        self._cond = threading.Condition()
        self._held: deque[FramePacket] = deque()
        self.frames_published = 0
        self.late = 0
        self.dropped = 0

    # --- configuration ----------------------------------------------------------------
    @property
    def delay_ms(self) -> int:
        return self._delay_ns // 1_000_000

    def set_delay_ms(self, delay_ms: int) -> None:
        with self._cond:
            self._delay_ns = check_delay_ms(delay_ms) * 1_000_000
            self._cond.notify_all()

    @property
    def held(self) -> int:
        return len(self._held)

    # --- flow -------------------------------------------------------------------------
    def start(self) -> None:
        if self.alive:  # subscribing twice would republish every frame twice
            return
        self.feed.add_listener(self._offer)
        super().start()

    def _offer(self, packet: FramePacket) -> None:
        """Engine thread: republish now, or queue for the worker."""
        with self._cond:
            if self._delay_ns == 0 and not self._held:
                self._emit(packet)
                return
            if packet.capture_ns + self._delay_ns <= time.monotonic_ns():
                self.late += 1
            if len(self._held) >= MAX_HELD:
                self._held.popleft()
                self.dropped += 1
            self._held.append(packet)
            self._cond.notify_all()

    def _emit(self, packet: FramePacket) -> None:
        self.published.publish(packet)
        self.frames_published += 1
        self._listeners.notify(packet)

    def _run(self) -> None:
        with self._cond:
            while not self.stopping:
                if not self._held:
                    self._cond.wait(0.1)
                    continue
                wait_ns = self._held[0].capture_ns + self._delay_ns - time.monotonic_ns()
                if wait_ns > 0:
                    # Woken early by a new frame or a delay change: the loop re-evaluates.
                    self._cond.wait(min(wait_ns / 1e9, 0.1))
                    continue
                self._emit(self._held.popleft())
            # Stopping (the engine has stopped first): hand the held tail on so a recording
            # keeps its last `delay_ms` of frames.
            while self._held:
                self._emit(self._held.popleft())

    def _on_stop(self) -> None:
        self.feed.remove_listener(self._offer)
        with self._cond:
            self._cond.notify_all()
