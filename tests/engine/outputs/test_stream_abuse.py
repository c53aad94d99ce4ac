"""The stream server against hostile clients: a real slowloris attack over loopback, and
DNS rebinding (a foreign Host header). Real server, real sockets, bounded in time."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from engine.outputs.stream import StreamConfig, StreamServer
from engine.outputs.stream.config import loopback_host_header
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from tests.engine.stages.passthrough import PassThrough

TOKEN = "s3cret-token_42"


@pytest.fixture
def live() -> Iterator[LiveSession]:
    session = LiveSession(Engine([PassThrough()]), DemoSource(size=(160, 120)))
    session.start()
    assert session.wait_frames(1, timeout=10)
    yield session
    session.stop()


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket | None:
    """A TCP connection from `source` (any 127.x address is this machine on Linux)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((source, 0))
        sock.settimeout(5)
        sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        return None
    return sock


class Slowloris:
    """Keeps `count` connections open, each sending one more header line every
    `interval_s` and never the blank line that ends the request; reconnects a closed
    one at once. Stops by itself after `duration_s`."""

    def __init__(self, port: int, sources: list[str], interval_s: float, duration_s: float) -> None:
        self.port = port
        self.sources = sources
        self.interval_s = interval_s
        self.deadline = time.monotonic() + duration_s
        self.closed_by_server = 0
        self.sockets: list[socket.socket | None] = [None] * len(sources)
        self._thread = threading.Thread(target=self._run, name="slowloris", daemon=True)

    def _open(self, index: int) -> None:
        sock = _connect(self.port, self.sources[index])
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.sendall(b"GET /snapshot.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        self.sockets[index] = sock

    def _feed(self, index: int) -> None:
        sock = self.sockets[index]
        if sock is None:
            self._open(index)
            return
        try:
            sock.sendall(b"X-Slow: 1\r\n")
            sock.settimeout(0.0)
            if sock.recv(1) == b"":  # the server closed it
                raise ConnectionError
        except BlockingIOError:
            return  # still open, nothing to read: the attack goes on
        except OSError:
            self.closed_by_server += 1
            sock.close()
            self._open(index)

    def _run(self) -> None:
        for index in range(len(self.sources)):
            self._open(index)
        while time.monotonic() < self.deadline:
            for index in range(len(self.sources)):
                self._feed(index)
            time.sleep(self.interval_s)

    def __enter__(self) -> Slowloris:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.deadline = 0.0
        self._thread.join(10)
        for sock in self.sockets:
            if sock is not None:
                sock.close()


def _snapshot(port: int, source: str = "127.0.0.1") -> int:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=10, source_address=(source, 0)
    )
    try:
        connection.request("GET", f"/snapshot.jpg?token={TOKEN}")
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _other_loopback_addresses(count: int) -> list[str]:
    addresses = [f"127.0.{i // 250}.{i % 250 + 2}" for i in range(count)]
    probe = _connect_probe(addresses[0])
    if not probe:
        pytest.skip("only 127.0.0.1 is a loopback address here")
    return addresses


def _connect_probe(address: str) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((address, 0))
        except OSError:
            return False
    return True


def test_slowloris_cannot_lock_out_an_authenticated_client(live: LiveSession) -> None:
    """The issue's attack: 50 connections, each a header line every so often (here 0.5 s,
    with a 2 s request deadline: a per-read timeout would never fire). Half come from the
    client's own address, half from 25 other addresses; the server allows 8 clients."""
    config = StreamConfig(port=0, token=TOKEN, max_clients=4, request_timeout_s=2.0)
    server = StreamServer(live.engine, config)
    server.start()
    try:
        sources = ["127.0.0.1"] * 25 + _other_loopback_addresses(25)
        with Slowloris(server.port, sources, interval_s=0.5, duration_s=30) as attack:
            time.sleep(1.0)  # the attack holds its connections
            statuses = [_snapshot(server.port) for _ in range(10)]
            time.sleep(config.request_timeout_s + 1.0)  # past every attacker's deadline
            statuses += [_snapshot(server.port) for _ in range(10)]
            closed = attack.closed_by_server
        assert statuses == [200] * 20
        # The attackers' connections were closed: to make room and at the deadline.
        assert closed >= 25 and server.table.evicted >= 25
    finally:
        assert server.stop(5.0)
    assert server.connections == 0


def test_a_request_is_closed_at_its_deadline_however_slowly_it_trickles(
    live: LiveSession,
) -> None:
    server = StreamServer(live.engine, StreamConfig(port=0, request_timeout_s=1.0))
    server.start()
    sock = _connect(server.port)
    assert sock is not None
    try:
        sock.sendall(b"GET /snapshot.jpg HTTP/1.1\r\n")
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 8.0:  # a byte every 0.2 s: never idle for long
            try:
                sock.sendall(b"X")
                sock.settimeout(0.2)
                if sock.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:
                closed = True
                break
        assert closed, "the trickling request was never closed"
        assert server.table.evicted == 1
    finally:
        sock.close()
        assert server.stop(5.0)


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        (None, True),
        ("127.0.0.1", True),
        ("127.0.0.1:8080", True),
        ("localhost:8080", True),
        ("LOCALHOST.", True),
        ("[::1]:8080", True),
        ("attacker.example", False),
        ("attacker.example:8080", False),
        ("127.0.0.1.attacker.example", False),
        ("192.168.1.5:8080", False),
        ("", False),
    ],
)
def test_loopback_host_names(host: str | None, allowed: bool) -> None:
    assert loopback_host_header(host) is allowed


def _get_with_host(port: int, host: str, path: str = "/snapshot.jpg") -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_dns_rebinding_is_refused_on_a_loopback_stream(live: LiveSession) -> None:
    """The issue's request: `curl -H 'Host: attacker.example' …/snapshot.jpg` was a 200."""
    server = StreamServer(live.engine, StreamConfig(port=0))
    server.start()
    try:
        status, body = _get_with_host(server.port, "attacker.example")
        assert status == 403 and b"loopback" in body
        assert _get_with_host(server.port, "attacker.example", "/stream.mjpg")[0] == 403
        assert _get_with_host(server.port, f"localhost:{server.port}")[0] == 200
    finally:
        assert server.stop(5.0)


def test_a_token_protected_loopback_stream_checks_the_host_too_and_hides_the_token(
    live: LiveSession,
) -> None:
    server = StreamServer(live.engine, StreamConfig(port=0, token=TOKEN))
    server.start()
    try:
        status, body = _get_with_host(server.port, "attacker.example", f"/?token={TOKEN}")
        assert status == 403 and TOKEN.encode() not in body
    finally:
        assert server.stop(5.0)


def test_a_stream_bound_for_the_network_answers_any_host_with_the_token(
    live: LiveSession,
) -> None:
    """Bound to every interface (the token is then required): clients name this machine
    by its LAN address or name, which the server cannot know; the token protects it."""
    server = StreamServer(live.engine, StreamConfig(host="0.0.0.0", port=0, token=TOKEN))
    server.start()
    try:
        assert (
            _get_with_host(server.port, "studio-pc.lan", f"/snapshot.jpg?token={TOKEN}")[0] == 200
        )
        assert _get_with_host(server.port, "studio-pc.lan")[0] == 401
    finally:
        assert server.stop(5.0)
