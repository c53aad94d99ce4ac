"""A thread-safe list of frame listeners, notified without letting one break the rest, and
the frame-feed surface built on it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from engine.core.packet import FramePacket
from engine.core.slots import DoubleBuffer

log = logging.getLogger(__name__)

FrameListener = Callable[[FramePacket], None]


class Listeners:
    def __init__(self, what: str) -> None:
        self._what = what  # named in the log when a listener fails
        self._lock = threading.Lock()
        self._items: list[FrameListener] = []

    def add(self, listener: FrameListener) -> None:
        with self._lock:
            self._items.append(listener)

    def remove(self, listener: FrameListener) -> None:
        with self._lock:
            if listener in self._items:
                self._items.remove(listener)

    def notify(self, packet: FramePacket) -> None:
        with self._lock:
            items = tuple(self._items)
        for listener in items:
            try:
                listener(packet)
            except Exception:
                log.exception("%s listener failed", self._what)


class Publisher:
    """The frame-feed surface (engine/outputs/base.py `FrameFeed`), written once for the
    engine, the output guard and the delay line: `published`, the latest packet for sinks
    that poll, and listeners called on the publishing thread after each publish."""

    def __init__(self, what: str) -> None:
        self.published: DoubleBuffer[FramePacket] = DoubleBuffer()
        self._listeners = Listeners(what)

    def add_listener(self, listener: FrameListener) -> None:
        """Called on the publishing thread after each publish; must return quickly."""
        self._listeners.add(listener)

    def remove_listener(self, listener: FrameListener) -> None:
        self._listeners.remove(listener)
