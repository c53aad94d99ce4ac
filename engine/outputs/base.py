"""Two ways to read a feed's published frames without ever stalling it.

`LatestSink` reads the front buffer (newest wins, skipped frames counted) — right for a
virtual camera or a preview. `QueueSink` keeps a short bounded backlog so a recording
gets every frame unless it falls more than `backlog` frames behind.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections import deque
from typing import Protocol

from engine.core.listeners import FrameListener
from engine.core.packet import FramePacket
from engine.core.slots import DoubleBuffer
from engine.core.threads import ErrorCallback, Worker


class FrameFeed(Protocol):
    """What sinks read: the engine itself, or a delay line that republishes its frames."""

    @property
    def published(self) -> DoubleBuffer[FramePacket]: ...

    def add_listener(self, listener: FrameListener) -> None: ...

    def remove_listener(self, listener: FrameListener) -> None: ...


class LatestSink(Worker):
    def __init__(self, name: str, engine: FrameFeed, on_error: ErrorCallback | None = None) -> None:
        super().__init__(name, on_error)
        self.engine = engine
        self.frames = 0
        self.skipped = 0

    @abstractmethod
    def consume(self, packet: FramePacket) -> None:
        """Handle one packet on the sink's thread."""

    def close(self) -> None:
        """Release the device or file; runs on the sink's thread as it ends."""

    def _run(self) -> None:
        version = self.engine.published.version
        try:
            while not self.stopping:
                new_version, packet = self.engine.published.wait_newer(version, 0.1)
                if packet is None or new_version == version:
                    continue
                if version and new_version > version + 1:
                    self.skipped += new_version - version - 1
                version = new_version
                self.consume(packet)
                self.frames += 1
        finally:
            self.close()


class QueueSink(Worker):
    def __init__(
        self,
        name: str,
        engine: FrameFeed,
        backlog: int = 32,
        on_error: ErrorCallback | None = None,
    ) -> None:
        super().__init__(name, on_error)
        self.engine = engine
        self._queue: deque[FramePacket] = deque()
        self._backlog = backlog
        self._cond = threading.Condition()
        self.frames = 0
        self.dropped = 0

    @abstractmethod
    def consume(self, packet: FramePacket) -> None:
        """Handle one packet on the sink's thread."""

    def close(self) -> None:
        """Flush and release; runs on the sink's thread as it ends."""

    def _offer(self, packet: FramePacket) -> None:
        with self._cond:
            if len(self._queue) >= self._backlog:
                self._queue.popleft()
                self.dropped += 1
            self._queue.append(packet)
            self._cond.notify()

    def start(self) -> None:
        if self.alive:  # a second start must not subscribe twice (every frame written twice)
            return
        self.engine.add_listener(self._offer)
        super().start()

    def _on_stop(self) -> None:
        self.engine.remove_listener(self._offer)
        with self._cond:
            self._cond.notify_all()

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    self._cond.wait_for(lambda: bool(self._queue) or self.stopping, 0.1)
                    if not self._queue:
                        if self.stopping:
                            break
                        continue
                    packet = self._queue.popleft()
                self.consume(packet)
                self.frames += 1
        finally:
            self.close()
