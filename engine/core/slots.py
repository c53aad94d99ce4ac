"""Hand-over points between threads: newest-wins slot and a double-buffered output."""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class LatestSlot(Generic[T]):
    """One slot, newest wins. A put over an item nobody took counts as a drop.

    The writer never waits (capture must not wait on processing); the reader blocks
    until an item newer than the last one it took arrives.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._item: T | None = None
        self._fresh = False
        self._closed = False
        self.puts = 0
        self.drops = 0

    def put(self, item: T) -> None:
        with self._cond:
            if self._fresh:
                self.drops += 1
            self._item = item
            self._fresh = True
            self.puts += 1
            self._cond.notify_all()

    def get(self, timeout: float | None = None) -> T | None:
        """The newest untaken item, or None on timeout or when closed."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._fresh or self._closed, timeout):
                return None
            if not self._fresh:
                return None
            self._fresh = False
            item = self._item
            self._cond.notify_all()
            return item

    def wait_taken(self, timeout: float | None = None) -> bool:
        """Block until the current item was taken (lock-step benchmarking only)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._fresh or self._closed, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def reopen(self) -> None:
        """Accept gets again after `close` (a restarted consumer)."""
        with self._cond:
            self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed


class DoubleBuffer(Generic[T]):
    """Back buffer filled by one writer, front buffer read by any number of readers.

    `publish` swaps the finished back item to the front under a lock. Readers get the
    front item without consuming it. Published items must not be mutated afterwards
    (the engine marks output arrays read-only), so a reader can never see a torn frame
    however long it holds one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._front: T | None = None
        self._back: T | None = None
        self._version = 0

    def write_back(self, item: T) -> None:
        self._back = item

    def swap(self) -> int:
        """Publish the back item; returns the new version number."""
        with self._changed:
            self._front, self._back = self._back, self._front
            self._version += 1
            self._changed.notify_all()
            return self._version

    def publish(self, item: T) -> int:
        self.write_back(item)
        return self.swap()

    def read(self) -> tuple[int, T | None]:
        with self._lock:
            return self._version, self._front

    def wait_newer(self, version: int, timeout: float | None = None) -> tuple[int, T | None]:
        """Block until the front is newer than `version` (or timeout); never consumes."""
        with self._changed:
            self._changed.wait_for(lambda: self._version > version, timeout)
            return self._version, self._front

    @property
    def version(self) -> int:
        return self._version
