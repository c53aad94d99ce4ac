"""A thread-safe list of frame listeners, notified without letting one break the rest."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from engine.core.packet import FramePacket

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
