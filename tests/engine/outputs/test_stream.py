"""The MJPEG stream with real clients over loopback: OpenCV (FFmpeg), urllib, curl, raw sockets."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import cv2
import numpy as np
import pytest

from engine.outputs.stream import StreamConfig, StreamError, StreamServer, parse_endpoint
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from tests.engine.stages.passthrough import PassThrough

TOKEN = "s3cret-token_42"


@pytest.fixture
def live() -> Iterator[LiveSession]:
    """A real engine (pass-through) fed by the moving demo portrait, 320x240 @ 30 fps."""
    session = LiveSession(Engine([PassThrough()]), DemoSource(size=(320, 240)))
    session.start()
    assert session.wait_frames(1, timeout=10)
    yield session
    session.stop()


@pytest.fixture
def serve(live: LiveSession) -> Iterator[Callable[..., StreamServer]]:
    servers: list[StreamServer] = []

    def start(**kwargs: Any) -> StreamServer:
        server = StreamServer(live.engine, StreamConfig(port=0, **kwargs))
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        assert server.stop(5.0)


def _wait(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


class RawClient:
    """A minimal HTTP client on a plain socket that parses the multipart stream itself."""

    def __init__(
        self, port: int, path: str = "/stream.mjpg", headers: str = "", rcvbuf: int | None = None
    ) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}\r\n".encode()
        )
        self.buffer = b""

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def _read_exact(self, size: int) -> bytes:
        while len(self.buffer) < size:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def response(self) -> tuple[int, dict[str, str]]:
        head = self._read_until(b"\r\n\r\n").decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        headers = {}
        for line in head[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        return status, headers

    def frame(self, boundary: str) -> np.ndarray:
        self._read_until(f"--{boundary}\r\n".encode())
        part = self._read_until(b"\r\n\r\n").decode("latin-1").lower()
        assert "content-type: image/jpeg" in part
        length = int(part.split("content-length:")[1].split("\r\n")[0])
        jpeg = self._read_exact(length)
        image: np.ndarray | None = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert image is not None, "a part did not decode as JPEG"
        return image

    def close(self) -> None:
        self.sock.close()


def _get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> tuple[int, Any]:
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, (response.headers, response.read())
    except urllib.error.HTTPError as error:
        return error.code, (error.headers, error.read())


def test_opencv_ffmpeg_reads_the_stream(serve: Callable[..., StreamServer]) -> None:
    server = serve()
    capture = cv2.VideoCapture(server.url, cv2.CAP_FFMPEG)
    try:
        assert capture.isOpened(), f"OpenCV could not open {server.url}"
        frames = []
        for _ in range(8):
            ok, frame = capture.read()
            assert ok
            frames.append(frame)
    finally:
        capture.release()
    assert all(frame.shape == (240, 320, 3) for frame in frames)
    # The demo portrait moves: a live stream, not one repeated picture.
    assert max(float(np.abs(f.astype(int) - frames[0]).mean()) for f in frames[1:]) > 0.5


def test_snapshot_matches_the_engine_output(
    live: LiveSession, serve: Callable[..., StreamServer]
) -> None:
    server = serve(quality=95)
    status, (headers, body) = _get(server.snapshot_url)
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
    _, packet = live.engine.published.read()
    assert image is not None and packet is not None and image.shape == packet.result.shape
    # A frame from the same moving stream, at most a few frames apart: close, not equal.
    assert float(np.abs(image.astype(int) - packet.result).mean()) < 20
    status, (headers, body) = _get(server.snapshot_url, method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 1000


def test_page_and_unknown_paths(serve: Callable[..., StreamServer]) -> None:
    server = serve()
    status, (headers, body) = _get(server.page_url)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'<img src="stream.mjpg"' in body
    status, _ = _get(server.page_url + "nope")
    assert status == 404


def test_raw_http_multipart(serve: Callable[..., StreamServer]) -> None:
    server = serve()
    client = RawClient(server.port)
    try:
        status, headers = client.response()
        assert status == 200
        content_type = headers["content-type"]
        assert content_type.startswith("multipart/x-mixed-replace")
        boundary = content_type.split("boundary=")[1]
        frames = [client.frame(boundary) for _ in range(5)]
    finally:
        client.close()
    assert all(frame.shape == (240, 320, 3) for frame in frames)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_fetches_a_snapshot_with_token_header(serve: Callable[..., StreamServer]) -> None:
    server = serve(token=TOKEN)
    url = server.config.url(server.port, "/snapshot.jpg", with_token=False)
    done = subprocess.run(
        [
            "curl",
            "-sS",
            "-o",
            "-",
            "-w",
            "%{http_code}",
            "-H",
            f"Authorization: Bearer {TOKEN}",
            url,
        ],
        capture_output=True,
        timeout=20,
        check=False,
    )
    assert done.stdout.endswith(b"200")
    assert cv2.imdecode(np.frombuffer(done.stdout[:-3], np.uint8), cv2.IMREAD_COLOR) is not None


def test_token_is_enforced(serve: Callable[..., StreamServer]) -> None:
    server = serve(token=TOKEN)
    bare = server.config.url(server.port, "/snapshot.jpg", with_token=False)
    status, (headers, _) = _get(bare)
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
    assert _get(bare + "?token=wrong-token")[0] == 403
    assert _get(bare, {"Authorization": "Bearer wrong-token"})[0] == 403
    assert _get(bare, {"X-Fusecam-Token": "nope-nope"})[0] == 403
    assert _get(bare + f"?token={TOKEN}")[0] == 200
    assert _get(bare, {"Authorization": f"Bearer {TOKEN}"})[0] == 200
    assert _get(bare, {"X-Fusecam-Token": TOKEN})[0] == 200
    assert _get(server.snapshot_url)[0] == 200  # the URL the CLI prints carries it
    # The stream itself and the page are guarded the same way.
    stream = server.config.url(server.port, with_token=False)
    assert _get(stream)[0] == 401
    client = RawClient(server.port, headers=f"X-Fusecam-Token: {TOKEN}\r\n")
    try:
        assert client.response()[0] == 200
    finally:
        client.close()
    status, (_, body) = _get(server.page_url)
    assert status == 200 and f"stream.mjpg?token={TOKEN}".encode() in body


def test_network_address_needs_a_token() -> None:
    with pytest.raises(StreamError, match="--token"):
        StreamConfig(host="0.0.0.0")
    with pytest.raises(StreamError, match="--token"):
        StreamConfig(host="192.168.1.20")
    assert StreamConfig(host="0.0.0.0", token=TOKEN).exposed
    assert not StreamConfig(host="localhost").exposed
    with pytest.raises(StreamError, match="8-128"):
        StreamConfig(token="short")
    with pytest.raises(StreamError, match="8-128"):
        StreamConfig(token="has spaces in it")


def test_endpoints_parse() -> None:
    assert parse_endpoint("8080") == ("127.0.0.1", 8080)
    assert parse_endpoint("0.0.0.0:9000") == ("0.0.0.0", 9000)
    assert parse_endpoint("[::1]:8081") == ("::1", 8081)
    for bad in ("http", ":80", "host:99999", "[::1]8080"):
        with pytest.raises(StreamError):
            parse_endpoint(bad)


def test_stalled_client_loses_frames_others_and_engine_do_not(
    live: LiveSession, serve: Callable[..., StreamServer]
) -> None:
    # Small buffers and a short timeout so the stall shows within a second or two.
    server = serve(send_buffer_bytes=32 * 1024, send_timeout_s=3.0)
    stalled = RawClient(server.port, rcvbuf=4096)  # sends its request, then never reads
    healthy = RawClient(server.port)
    try:
        _, headers = healthy.response()
        boundary = headers["content-type"].split("boundary=")[1]
        assert _wait(lambda: server.viewers == 2)
        start_frames = live.engine.frames_published
        received = 0
        deadline = time.monotonic() + 20
        compared = False
        # Keep reading until the server has given up on the stalled client.
        while server.connections > 1 and time.monotonic() < deadline:
            healthy.frame(boundary)
            received += 1
            if received == 20 and server.connections == 2:
                by_frames = sorted(info.frames for info in server.clients())
                assert by_frames[0] < by_frames[1] / 2  # the stalled one fell behind
                compared = True
        assert server.connections == 1, "the stalled client was never dropped"
        for _ in range(10):  # and the healthy one still streams after that
            healthy.frame(boundary)
            received += 1
        assert received >= 20
        assert live.engine.frames_published - start_frames >= 20
        assert compared, "the stalled client was dropped before the healthy one had 20 frames"
        # (the server counts a frame once its send returned, maybe just after we read it)
        assert _wait(lambda: server.clients()[0].frames >= received)
    finally:
        stalled.close()
        healthy.close()


def test_slow_client_gets_the_newest_frames(serve: Callable[..., StreamServer]) -> None:
    server = serve(send_buffer_bytes=16 * 1024)
    client = RawClient(server.port, rcvbuf=4096)
    try:
        _, headers = client.response()
        boundary = headers["content-type"].split("boundary=")[1]
        for _ in range(6):  # about 5 frames a second from a 30 fps stream
            client.frame(boundary)
            time.sleep(0.2)
        (info,) = server.clients()
        assert info.skipped > 0  # frames it was too slow for were dropped, not queued
    finally:
        client.close()


def test_twenty_concurrent_clients(live: LiveSession, serve: Callable[..., StreamServer]) -> None:
    server = serve()
    per_client = 15
    results: list[int] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    together = threading.Barrier(20, timeout=30)
    seen_together: list[int] = []

    def watch() -> None:
        client = RawClient(server.port)
        try:
            _, headers = client.response()
            boundary = headers["content-type"].split("boundary=")[1]
            shapes = {client.frame(boundary).shape}
            if together.wait() == 0:  # every client has a frame and is still connected
                seen_together.append(server.viewers)
            shapes |= {client.frame(boundary).shape for _ in range(per_client - 1)}
            assert shapes == {(240, 320, 3)}
            with lock:
                results.append(per_client)
        except BaseException as exc:
            with lock:
                failures.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=watch) for _ in range(20)]
    encoded_before = server.jpegs.encoded
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []
    assert len(results) == 20
    assert seen_together == [20]
    # One encode per frame, shared: 300 frames went out from far fewer encodes.
    assert server.jpegs.encoded - encoded_before < 20 * per_client / 2
    # Closed connections are cleaned up.
    assert _wait(lambda: server.connections == 0 and server.viewers == 0)


def test_clients_over_the_limit_get_503(serve: Callable[..., StreamServer]) -> None:
    server = serve(max_clients=2)
    clients = [RawClient(server.port) for _ in range(2)]
    try:
        assert all(client.response()[0] == 200 for client in clients)
        status, _ = _get(server.snapshot_url)
        assert status == 503
        assert server.rejected == 1
    finally:
        for client in clients:
            client.close()
    assert _wait(lambda: server.connections == 0)
    assert _get(server.snapshot_url)[0] == 200


def test_stop_closes_connected_clients(live: LiveSession) -> None:
    server = StreamServer(live.engine, StreamConfig(port=0))
    server.start()
    client = RawClient(server.port)
    try:
        _, headers = client.response()
        client.frame(headers["content-type"].split("boundary=")[1])
        assert server.stop(5.0)
        assert server.connections == 0
        with pytest.raises((ConnectionError, OSError)):
            for _ in range(1000):  # drains what was in flight, then sees the close
                client.frame("fusecamframe")
    finally:
        client.close()


def test_port_in_use_is_a_clear_error(live: LiveSession) -> None:
    first = StreamServer(live.engine, StreamConfig(port=0))
    first.open()
    try:
        second = StreamServer(live.engine, StreamConfig(port=first.port))
        with pytest.raises(StreamError, match=f"cannot listen on 127.0.0.1:{first.port}"):
            second.open()
    finally:
        assert first.stop()


def test_ipv6_loopback(live: LiveSession) -> None:
    try:
        probe = socket.socket(socket.AF_INET6)
        probe.bind(("::1", 0))
        probe.close()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    server = StreamServer(live.engine, StreamConfig(host="::1", port=0))
    server.start()
    try:
        assert server.url.startswith("http://[::1]:")
        assert _get(server.snapshot_url)[0] == 200
    finally:
        assert server.stop()
