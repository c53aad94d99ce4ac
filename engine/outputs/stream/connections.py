"""Who is connected to the stream server, and who has to make room.

A connection is *pending* until its request line and headers are in. Pending
connections cost a thread each and give nothing: a slowloris client opens dozens and
feeds each a header line every few seconds, so that they never finish and never time
out. Hence three rules:

- a whole-request deadline: a connection still pending `request_timeout_s` after it was
  accepted is closed (a per-read timeout restarts with every byte; this does not);
- a per-address limit on pending connections: a new one over it closes that address's
  oldest pending one (served clients are not limited per address: on a loopback stream
  every client, OBS and browsers alike, comes from 127.0.0.1);
- the server-wide limit of twice `max_clients` connections: a newcomer that finds it
  reached closes the oldest pending connection instead of being refused, so a client
  that sends its request at once always gets in; only when every connection is a
  served client is a newcomer refused.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass


@dataclass(slots=True)
class _Entry:
    address: str
    since_ns: int
    pending: bool = True  # request line and headers not yet read
    over_limit: bool = False  # came when max_clients were served: gets a 503
    closed: bool = False  # closed by us to make room or at its deadline


def _close(connection: socket.socket) -> None:
    # shutdown, not close: the handler thread still owns the socket and wakes on EOF.
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)


class ConnectionTable:
    """Thread-safe: the accept thread admits, handler threads report, the server's
    loop expires (`expire`, every poll interval)."""

    def __init__(
        self, max_clients: int, max_pending_per_address: int, request_timeout_s: float
    ) -> None:
        self.max_clients = max_clients
        self.max_pending_per_address = max_pending_per_address
        self.request_timeout_ns = round(request_timeout_s * 1e9)
        self._entries: dict[socket.socket, _Entry] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.rejected = 0  # refused at the door, or answered 503
        self.evicted = 0  # pending connections closed to make room or past the deadline

    def __len__(self) -> int:
        return sum(not e.closed for e in self._entries.values())

    def sockets(self) -> list[socket.socket]:
        with self._lock:
            return list(self._entries)

    def admit(self, connection: socket.socket, address: str) -> bool:
        """Accept thread: True to serve `connection`, False to close it unserved."""
        with self._lock:
            live = [(s, e) for s, e in self._entries.items() if not e.closed]
            mine = [(s, e) for s, e in live if e.address == address and e.pending]
            if len(mine) >= self.max_pending_per_address:
                self._evict_oldest(mine)
                live = [(s, e) for s, e in live if not e.closed]
            if len(live) >= 2 * self.max_clients and not self._evict_oldest(live):
                self.rejected += 1
                return False
            self._entries[connection] = _Entry(address, time.monotonic_ns())
            return True

    def _evict_oldest(self, candidates: list[tuple[socket.socket, _Entry]]) -> bool:
        pending = [(e.since_ns, id(s), s, e) for s, e in candidates if e.pending]
        if not pending:
            return False
        _, _, connection, entry = min(pending)
        entry.closed = True
        self.evicted += 1
        _close(connection)
        return True

    def request_read(self, connection: socket.socket) -> bool:
        """Handler thread, headers parsed: False when `max_clients` are already served
        (this one gets a 503)."""
        with self._lock:
            entry = self._entries.get(connection)
            if entry is None:
                return False
            served = sum(
                not (e.pending or e.over_limit or e.closed) for e in self._entries.values()
            )
            entry.pending = False
            entry.over_limit = served >= self.max_clients
            if entry.over_limit:
                self.rejected += 1
            return not entry.over_limit

    def expire(self) -> None:
        """Close every connection still sending its request past the deadline."""
        now = time.monotonic_ns()
        with self._lock:
            for connection, entry in self._entries.items():
                late = now - entry.since_ns > self.request_timeout_ns
                if entry.pending and not entry.closed and late:
                    entry.closed = True
                    self.evicted += 1
                    _close(connection)

    def release(self, connection: socket.socket) -> None:
        """Handler thread, finished (for whatever reason)."""
        with self._changed:
            self._entries.pop(connection, None)
            self._changed.notify_all()

    def wait_empty(self, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: not self._entries, timeout)
