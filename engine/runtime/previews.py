"""Background renderer of the gallery's live mini-previews.

One low-priority thread cycles through the visible tiles' faces and swaps the newest,
already analysed packet with each, with the swapper the stream uses
(runtime/preview_swapper.py: the neural one when it ran, else the built-in one). It
must not cost the main stream frames, and OS priority alone cannot promise that in
Python (the GIL), so:
1. it lowers its OS scheduling priority where threads have their own nice value (Linux);
2. it renders right after the engine publishes, in the gap before the next frame;
3. it caps its duty cycle: after a render of t seconds it rests at least t·(1−duty)/duty;
4. it backs off (up to `max_backoff_s` between renders) while the engine drops input
   frames — a saturated engine has no slack to share — and recovers when it stops.
Results wait in a newest-wins dict; the GUI is told the key and pulls the pixels.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.threads import Worker
from engine.core.types import Frame
from engine.runtime.pipeline import Engine
from engine.runtime.preview_swapper import SwapperPreview

log = logging.getLogger(__name__)

Renderer = Callable[[FramePacket, str, Any, EngineSettings, int], Frame]
Notify = Callable[[str], None]

LOW_PRIORITY_NICE = 10


def lower_thread_priority() -> bool:
    """Raise this thread's nice value; True when the OS applied it."""
    if sys.platform.startswith("linux"):
        try:
            # On Linux, nice values are per thread (the tid is a valid "process" id here).
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOW_PRIORITY_NICE)
            return True
        except OSError as exc:
            log.info("cannot lower the preview thread's priority: %s", exc)
    return False


class MiniPreviewRenderer(Worker):
    def __init__(
        self,
        engine: Engine,
        library: Any,
        notify: Notify,
        *,
        renderer: Renderer | None = None,
        per_tile_hz: float = 3.0,
        duty: float = 0.25,
        max_side: int = 160,
        max_backoff_s: float = 1.0,
    ) -> None:
        super().__init__("gallery-previews")
        self.engine = engine
        self.library = library
        self.notify = notify
        self._renderer = renderer
        # The default renderer, made on this thread when it starts (it builds a fitter).
        self.swapper_preview: SwapperPreview | None = None
        self.per_tile_hz = per_tile_hz
        self.duty = duty
        self.max_side = max_side
        self.max_backoff_s = max_backoff_s
        self.backoff_s = 0.0
        self._keys: tuple[str, ...] = ()
        self._lock = threading.Lock()
        self._results: dict[str, Frame] = {}
        self._rendered_for: dict[str, int] = {}  # key → frame id last rendered
        self.errors: dict[str, str] = {}
        self.renders = 0
        self.busy_s = 0.0
        self.low_priority = False
        self._wake = threading.Event()

    def set_keys(self, keys: Sequence[str]) -> None:
        """The faces whose tiles are visible, in display order (any thread)."""
        self._keys = tuple(dict.fromkeys(keys))
        self._wake.set()

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    def take(self, key: str) -> Frame | None:
        with self._lock:
            return self._results.pop(key, None)

    def _on_stop(self) -> None:
        self._wake.set()

    def _rest(self, seconds: float) -> None:
        if seconds > 0:
            self.wait(seconds)

    def _run(self) -> None:
        self.low_priority = lower_thread_priority()
        render = self._renderer
        if render is None:
            engine = self.engine
            self.swapper_preview = SwapperPreview(lambda: engine.stages)
            render = self.swapper_preview.render
        index = 0
        version = 0
        drops_seen = self.engine.input.drops
        while not self.stopping:
            keys = self._keys
            if not keys:
                self._wake.wait(0.2)
                self._wake.clear()
                continue
            # Start right after a publish: the engine is then waiting for its next frame.
            version, packet = self.engine.published.wait_newer(version, 0.2)
            if packet is None:
                continue
            index %= len(keys)
            key = keys[index]
            index += 1
            if self._rendered_for.get(key) == packet.frame_id:
                self._rest(0.05)  # no new frame since this face's last render
                continue
            started = time.perf_counter()
            try:
                frame = render(packet, key, self.library, self.engine.settings, self.max_side)
            except Exception as exc:
                # A face that cannot be previewed must not stop the others.
                if self.errors.get(key) != str(exc):
                    log.warning("mini-preview of %s failed: %s", key[:8], exc)
                self.errors[key] = str(exc)
                frame = None
            took = time.perf_counter() - started
            self.busy_s += took
            self._rendered_for[key] = packet.frame_id
            if frame is not None:
                self.errors.pop(key, None)
                with self._lock:
                    self._results[key] = frame
                self.renders += 1
                self.notify(key)
            # Drops since the last render (its rest included): is the engine saturated?
            drops = self.engine.input.drops
            self._adapt(drops > drops_seen)
            drops_seen = drops
            period = 1.0 / (self.per_tile_hz * len(keys))
            self._rest(max(period - took, took * (1.0 - self.duty) / self.duty, self.backoff_s))

    def _adapt(self, engine_dropped: bool) -> None:
        """Double the pause while the engine drops frames; halve it while it keeps up."""
        if engine_dropped:
            self.backoff_s = min(self.max_backoff_s, max(0.25, 2 * self.backoff_s))
        else:
            self.backoff_s = self.backoff_s / 2 if self.backoff_s > 0.05 else 0.0
