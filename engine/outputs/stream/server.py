"""The HTTP side of the stream: `/stream.ts` (MPEG-TS with capture times, for OBS),
`/stream.mjpg` (for browsers), `/snapshot.jpg` and the page at `/` that says which to use.

One thread per connection (stdlib `socketserver`): a client that stops reading blocks
only its own thread, on a socket with a small send buffer and a send timeout, so it
loses frames (it always gets the newest next) and is dropped after `send_timeout_s`,
while the engine, the encoder and every other client carry on. A client that never
finishes its request is closed at a deadline and when others need its place
(connections.py); a loopback stream answers only loopback Host names (DNS rebinding).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import socketserver
import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

from engine.core.threads import ErrorCallback, Worker
from engine.outputs.base import FrameFeed
from engine.outputs.stream.auth import authorize
from engine.outputs.stream.config import StreamConfig, StreamError, loopback_host_header
from engine.outputs.stream.connections import ConnectionTable
from engine.outputs.stream.jpeg import BOUNDARY, JpegFeed
from engine.outputs.stream.page import index_page
from engine.outputs.stream.ts import TsFeed

log = logging.getLogger(__name__)

SNAPSHOT_WAIT_S = 2.0  # for the first frame when none was published yet
_WAIT_SLICE_S = 0.5  # how often a waiting client re-checks for shutdown


@dataclass(slots=True)
class _Client:
    address: str
    connected_ns: int
    frames: int = 0
    skipped: int = 0


@dataclass(frozen=True, slots=True)
class ClientInfo:
    address: str
    connected_s: float
    frames: int
    skipped: int  # frames it missed because it read slower than they were produced


# socketserver's request type (a TCP server only ever gets the socket).
_Request = socket.socket | tuple[bytes, socket.socket]


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    # On Windows SO_REUSEADDR would let a second program silently share the port.
    allow_reuse_address = sys.platform != "win32"
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], family: int, owner: StreamServer) -> None:
        self.address_family = family
        self.owner = owner
        super().__init__(address, _Handler)

    def process_request(self, request: _Request, client_address: Any) -> None:
        if not self.owner.table.admit(cast(socket.socket, request), str(client_address[0])):
            self.shutdown_request(request)
            return
        # One short-lived thread per connection (not a Worker: the server owns them, and
        # `StreamServer.stop` closes their sockets and waits for every one to end).
        host, port = client_address[:2]
        threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"stream-client-{host}:{port}",
            daemon=True,
        ).start()

    def process_request_thread(self, request: _Request, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.owner.table.release(cast(socket.socket, request))

    def service_actions(self) -> None:
        # serve_forever's loop, every poll interval: the whole-request deadline.
        self.owner.table.expire()

    def handle_error(self, request: object, client_address: object) -> None:
        # Clients vanish mid-request all the time; that is not worth a traceback.
        log.debug("stream client %s failed", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    server_version = "Fusecam"
    sys_version = ""

    @property
    def owner(self) -> StreamServer:
        return cast(_Server, self.server).owner

    def setup(self) -> None:
        super().setup()
        # Per read, a backstop: the table's whole-request deadline is the real limit.
        self.connection.settimeout(self.owner.config.request_timeout_s)
        buffer = self.owner.config.send_buffer_bytes
        if buffer is not None:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, buffer)

    def log_message(self, format: str, *args: object) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:
        self._route(send_body=True)

    def do_HEAD(self) -> None:
        self._route(send_body=False)

    def _reply(
        self,
        status: HTTPStatus,
        body: bytes,
        content_type: str = "text/plain; charset=utf-8",
        headers: dict[str, str] | None = None,
        send_body: bool = True,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _route(self, send_body: bool) -> None:
        owner = self.owner
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if not owner.table.request_read(self.connection):
            limit = owner.config.max_clients
            self._reply(
                HTTPStatus.SERVICE_UNAVAILABLE,
                f"too many clients (limit {limit})\n".encode(),
                headers={"Retry-After": "5"},
                send_body=send_body,
            )
            return
        if not owner.config.exposed and not loopback_host_header(self.headers.get("Host")):
            self._reply(
                HTTPStatus.FORBIDDEN,
                # Never the token: this answer goes to whoever named another host.
                b"this stream answers only to loopback names: open it as "
                + owner.config.url(owner.port, "/", with_token=False).encode()
                + b"\n",
                send_body=send_body,
            )
            return
        status = authorize(owner.config.token, query, self.headers)
        if status is HTTPStatus.UNAUTHORIZED:
            self._reply(
                status,
                b"access token required (?token=, Authorization: Bearer, or X-Fusecam-Token)\n",
                headers={"WWW-Authenticate": 'Bearer realm="fusecam"'},
                send_body=send_body,
            )
            return
        if status is HTTPStatus.FORBIDDEN:
            self._reply(status, b"wrong access token\n", send_body=send_body)
            return
        if url.path == "/stream.mjpg":
            self._stream(send_body)
        elif url.path == "/stream.ts":
            self._stream_ts(send_body)
        elif url.path == "/snapshot.jpg":
            self._snapshot(send_body)
        elif url.path in ("/", "/index.html"):
            # The addresses as this client reached us (a LAN viewer: the LAN address).
            host = self.headers.get("Host") or f"127.0.0.1:{owner.port}"
            page = index_page(f"http://{host}", owner.config.token, owner.ts.encoder.describe())
            self._reply(HTTPStatus.OK, page, "text/html; charset=utf-8", send_body=send_body)
        else:
            self._reply(
                HTTPStatus.NOT_FOUND,
                b"not found: try /stream.ts, /stream.mjpg or /snapshot.jpg\n",
                send_body=send_body,
            )

    def _snapshot(self, send_body: bool) -> None:
        jpeg = self.owner.jpegs.snapshot(SNAPSHOT_WAIT_S)
        if jpeg is None:
            self._reply(
                HTTPStatus.SERVICE_UNAVAILABLE,
                b"no frame yet\n",
                headers={"Retry-After": "1"},
                send_body=send_body,
            )
            return
        self._reply(HTTPStatus.OK, jpeg, "image/jpeg", send_body=send_body)

    def _stream(self, send_body: bool) -> None:
        owner = self.owner
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
        self.send_header("Cache-Control", "no-store, no-cache, must-revalidate")
        self.send_header("Pragma", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        if not send_body:
            return
        # From here on the timeout bounds how long a client may refuse data.
        self.connection.settimeout(owner.config.send_timeout_s)
        jpegs = owner.jpegs
        client = owner._client_started(self.address_string())
        jpegs.watch()
        version = jpegs.version  # start with the next frame, never a stale one
        try:
            while not owner.stopping:
                encoded = jpegs.wait_newer(version, _WAIT_SLICE_S)
                if encoded is None:
                    continue
                if encoded.version > version + 1:
                    client.skipped += encoded.version - version - 1
                version = encoded.version
                self.wfile.write(encoded.part)
                client.frames += 1
        except OSError as exc:  # closed, reset, or stalled past the send timeout
            log.debug("stream client %s left: %s", client.address, exc)
        finally:
            jpegs.unwatch()
            owner._client_ended(client)

    def _stream_ts(self, send_body: bool) -> None:
        owner = self.owner
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "video/mp2t")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        if not send_body:
            return
        self.connection.settimeout(owner.config.send_timeout_s)
        feed = owner.ts
        client = owner._client_started(self.address_string())
        feed.watch()
        version, started = 0, False
        try:
            while not owner.stopping:
                chunk = feed.wait_newer(version, _WAIT_SLICE_S)
                if chunk is None:
                    continue
                if chunk.version != version + 1:
                    # Missed frames (or a new encoder): their successors need them, so
                    # start again at a keyframe.
                    client.skipped += max(0, chunk.version - version - 1)
                    started = False
                version = chunk.version
                started = started or chunk.keyframe
                if started:
                    self.wfile.write(chunk.data)
                    client.frames += 1
        except OSError as exc:  # closed, reset, or stalled past the send timeout
            log.debug("TS client %s left: %s", client.address, exc)
        finally:
            feed.unwatch()
            owner._client_ended(client)


class StreamServer(Worker):
    """MPEG-TS and MJPEG over HTTP. `open()` binds on the caller's thread (errors surface at once);
    `start()` runs the encoder and the server; `stop()` closes every connection."""

    def __init__(
        self, feed: FrameFeed, config: StreamConfig, on_error: ErrorCallback | None = None
    ) -> None:
        super().__init__("stream-http", on_error)
        self.config = config
        self.jpegs = JpegFeed(feed, config.quality, on_error)
        self.ts = TsFeed(feed, on_error)
        self.port = config.port
        self.table = ConnectionTable(
            config.max_clients, config.max_pending_per_address, config.request_timeout_s
        )
        self._httpd: _Server | None = None
        self._lock = threading.Lock()
        self._clients: list[_Client] = []

    # --- lifecycle --------------------------------------------------------------------
    def open(self) -> str:
        """Listen on the configured address; returns the stream URL."""
        if self._httpd is None:
            host, port = self.config.host, self.config.port
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            try:
                self._httpd = _Server((host, port), family, self)
            except OSError as exc:
                raise StreamError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
            self.port = int(self._httpd.server_address[1])
        return self.url

    def start(self) -> None:
        self.open()
        self.jpegs.start()
        self.ts.start()
        super().start()

    def _run(self) -> None:
        assert self._httpd is not None
        self._httpd.serve_forever(poll_interval=0.25)

    def _on_stop(self) -> None:
        self.jpegs.close_feed()
        self.ts.close_feed()
        if self._httpd is not None and self.alive:
            self._httpd.shutdown()  # returns once serve_forever has left its loop

    def stop(self, timeout: float = 2.0) -> bool:
        ended = super().stop(timeout)
        for connection in self.table.sockets():
            # Unblocks a handler stuck sending to a stalled client.
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        drained = self.table.wait_empty(timeout)
        if self._httpd is not None:
            self._httpd.server_close()
            self._httpd = None
        return self.jpegs.stop(timeout) and self.ts.stop(timeout) and ended and drained

    # --- what the GUI / CLI show ------------------------------------------------------
    @property
    def url(self) -> str:
        return self.config.url(self.port)

    @property
    def ts_url(self) -> str:
        """The timestamped stream (MPEG-TS): OBS's Media Source, ffmpeg, VLC."""
        return self.config.url(self.port, "/stream.ts")

    @property
    def snapshot_url(self) -> str:
        return self.config.url(self.port, "/snapshot.jpg")

    @property
    def page_url(self) -> str:
        return self.config.url(self.port, "/")

    @property
    def viewers(self) -> int:
        return self.jpegs.watchers + self.ts.watchers

    @property
    def connections(self) -> int:
        return len(self.table)

    @property
    def rejected(self) -> int:
        """Connections refused at the door or answered 503 for being over the limit."""
        return self.table.rejected

    def clients(self) -> list[ClientInfo]:
        now = time.monotonic_ns()
        with self._lock:
            return [
                ClientInfo(c.address, (now - c.connected_ns) / 1e9, c.frames, c.skipped)
                for c in self._clients
            ]

    # --- bookkeeping (server threads) ---------------------------------------------------
    def _client_started(self, address: str) -> _Client:
        client = _Client(address, time.monotonic_ns())
        with self._lock:
            self._clients.append(client)
        return client

    def _client_ended(self, client: _Client) -> None:
        with self._lock:
            self._clients.remove(client)
