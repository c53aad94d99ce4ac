"""The engine thread: newest packet in, stages in order, result published to the buffer."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

import cv2

from engine.core.listeners import Publisher
from engine.core.packet import FramePacket
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.settings import EngineSettings
from engine.core.slots import LatestSlot
from engine.core.stats import PROCESSING, FrameStats
from engine.core.threads import ErrorCallback, Worker
from engine.runtime.governor import EngineGovernor
from engine.runtime.swap_check import check_swap
from engine.stages.base import Stage

log = logging.getLogger(__name__)


# The engine's own sub-steps (queue wait, mirror, publish, stats) record under this name.
ENGINE_STEPS = "engine"


class StageError(RuntimeError):
    """A stage raised while processing a frame; the frame passed through unchanged."""


def _wrapped_interrupt(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl+C or termination signal an exception wraps, if any. A signal handler
    raises in whatever Python code runs at that moment, and a C extension calling back
    into Python turns what it raised into its own error: numba raises SystemError "...
    returned a result with an exception set". Caught as a stage failure, a SIGTERM
    during an offline swap ended as "stage failed" (exit 2) instead of as terminated."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


class Engine(Worker, Publisher):
    """Runs the stage list on the newest captured frame and double-buffers the results.

    Settings and the stage list are replaced by swapping one reference, read once per
    frame, so a frame is always processed with one consistent configuration. A stage
    that raises costs that frame its processing (it passes through unchanged), never
    the loop.
    """

    def __init__(
        self,
        stages: Sequence[Stage],
        settings: EngineSettings | None = None,
        *,
        stats_window: int = 120,
        on_error: ErrorCallback | None = None,
        governor: EngineGovernor | None = None,
    ) -> None:
        super().__init__("engine", on_error)
        self._stages: tuple[Stage, ...] = tuple(stages)
        # The user's settings, and the effective ones the stages run with: the quality
        # governor derives the latter (it only acts when settings.quality sets a target).
        self.governor = governor or EngineGovernor()
        self._settings_lock = threading.Lock()
        self._user_settings = settings or EngineSettings()
        self._settings = self.governor.derive(self._user_settings)
        self.input: LatestSlot[FramePacket] = LatestSlot()
        self.stats = FrameStats(stats_window)
        Publisher.__init__(self, "frame")
        self.stage_errors = 0
        # Every frame ever published; unlike stats.frames it survives stats.reset(),
        # so "has the source drained?" stays answerable after a benchmark warm-up.
        self.frames_published = 0
        self._last_error_log_ns = 0
        # Sub-step timing (`fusecam bench --profile`): each packet gets a StepTimer, and
        # the engine's own work (queue wait, mirror, publish, stats) is timed as "engine".
        self.profile = False
        self._publish_ms: tuple[float, float] | None = None  # the last frame's stats, listeners

    # --- configuration (any thread) ---------------------------------------------------
    @property
    def settings(self) -> EngineSettings:
        """The user's settings (what the controls show and edit)."""
        return self._user_settings

    @property
    def effective_settings(self) -> EngineSettings:
        """What the stages run with: the user's, or the governor's step down from them."""
        return self._settings

    def set_settings(self, settings: EngineSettings) -> None:
        with self._settings_lock:
            self._user_settings = settings
            self._settings = self.governor.derive(settings)

    @property
    def stages(self) -> tuple[Stage, ...]:
        return self._stages

    def set_stages(self, stages: Sequence[Stage]) -> None:
        self._stages = tuple(stages)

    # --- processing -------------------------------------------------------------------
    def process(self, packet: FramePacket) -> FramePacket:
        """Run every stage on one packet (on the calling thread); used live and offline."""
        settings = self._settings
        stages = self._stages
        started = time.perf_counter_ns()
        steps = packet.steps = StepTimer() if self.profile else NO_STEPS
        cpu_started = time.thread_time_ns() if steps.enabled else 0
        steps.begin(ENGINE_STEPS)
        if steps.enabled and self._publish_ms is not None:
            stats_ms, listeners_ms = self._publish_ms
            steps.add("stats", stats_ms)
            steps.add("listeners", listeners_ms)
            self._publish_ms = None
        if settings.output.mirror:
            with steps.step("mirror"):
                packet.frame = cv2.flip(packet.frame, 1)
        for stage in stages:
            steps.begin(stage.name)
            t0 = time.perf_counter_ns()
            c0 = time.thread_time_ns() if steps.enabled else 0
            try:
                packet = stage.process(packet, settings)
            except Exception as exc:
                interrupt = _wrapped_interrupt(exc)
                if interrupt is not None:
                    raise interrupt.with_traceback(interrupt.__traceback__) from None
                self._stage_failed(stage.name, exc, packet)
                break
            finally:
                # A stage that had nothing to do reports why instead of a near-zero time.
                if stage.name not in packet.skipped:
                    packet.timings_ms[stage.name] = (time.perf_counter_ns() - t0) / 1e6
                    if steps.enabled:
                        steps.cpu_ms[stage.name] = (time.thread_time_ns() - c0) / 1e6
        steps.begin(ENGINE_STEPS)
        packet.check = check_swap(packet, settings)  # what the output guard reads
        packet.processing_ms = (time.perf_counter_ns() - started) / 1e6
        if steps.enabled:
            steps.cpu_ms[PROCESSING] = (time.thread_time_ns() - cpu_started) / 1e6
        return packet

    def _stage_failed(self, name: str, exc: Exception, packet: FramePacket) -> None:
        self.stage_errors += 1
        packet.output = None
        packet.error = f"{name}: {exc}"
        now = time.monotonic_ns()
        # One log line and callback per second at most: a broken stage must not flood.
        if now - self._last_error_log_ns > 1_000_000_000:
            self._last_error_log_ns = now
            log.error("stage %s failed on frame %d: %s", name, packet.frame_id, exc, exc_info=exc)
            if self.on_error is not None:
                self.on_error(f"stage:{name}", StageError(f"{name}: {exc}"))

    def publish(self, packet: FramePacket) -> None:
        steps = packet.steps
        with steps.step("publish"):
            result = packet.result
            result.flags.writeable = False
            packet.published_ns = time.monotonic_ns()
            self.published.publish(packet)
            self.frames_published += 1
        t0 = time.perf_counter_ns()
        self.stats.record(packet, packet.processing_ms)
        self.stats.set_dropped(self.input.drops)
        if self.governor.observe(packet):
            with self._settings_lock:
                self._settings = self.governor.derive(self._user_settings)
        t1 = time.perf_counter_ns()
        self._listeners.notify(packet)
        if steps.enabled:
            # Measured after this frame's record: they travel with the next frame.
            self._publish_ms = ((t1 - t0) / 1e6, (time.perf_counter_ns() - t1) / 1e6)

    def _run(self) -> None:
        while not self.stopping:
            packet = self.input.get(timeout=0.1)
            if packet is None:
                continue
            waited_ms = (time.monotonic_ns() - packet.capture_ns) / 1e6
            packet.live = True
            packet = self.process(packet)
            # Capture to the engine taking it: latency, not work (newest-wins slot).
            packet.steps.add("queue", waited_ms)
            self.publish(packet)

    def start(self) -> None:
        # stop() closed the input; a restarted engine would otherwise spin on it.
        if not self.alive:
            self.input.reopen()
        super().start()

    def _on_stop(self) -> None:
        self.input.close()
