"""Model downloads against a real HTTP server on 127.0.0.1 (Range support, faults on cue)."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from engine.models import (
    ChecksumMismatch,
    DownloadCancelled,
    DownloadError,
    LicenceNotAccepted,
    Manifest,
    ModelCorruptError,
    ModelMissingError,
    ModelSpec,
    ModelStore,
    download_model,
)
from engine.models.hashing import stamp_path

PAYLOAD = np.random.default_rng(7).integers(0, 256, 3_000_000, dtype=np.uint8).tobytes()
SHA = hashlib.sha256(PAYLOAD).hexdigest()


@dataclass
class Behaviour:
    body: bytes = PAYLOAD
    cut_after: int | None = None  # close the connection after this many body bytes…
    cut_requests: int = 0  # …on this many requests
    honour_range: bool = True
    status: int = 200
    requests: list[dict[str, str]] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    behaviour: Behaviour

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        b = self.server.behaviour  # type: ignore[attr-defined]
        b.requests.append({k.lower(): v for k, v in self.headers.items()})
        if b.status != 200:
            self.send_error(b.status)
            return
        start = 0
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
        if match and b.honour_range:
            start = int(match.group(1))
            if start >= len(b.body):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(b.body)}")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(b.body) - 1}/{len(b.body)}")
        else:
            self.send_response(200)
        body = b.body[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if b.cut_requests > 0 and b.cut_after is not None:
            b.cut_requests -= 1
            self.wfile.write(body[: b.cut_after])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.behaviour = Behaviour()  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, name="test-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", httpd.behaviour  # type: ignore[attr-defined]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _store(tmp_path: Path, urls: tuple[str, ...], *, notice: str = "") -> ModelStore:
    spec = ModelSpec(
        name="demo",
        file="demo.onnx",
        sha256=SHA,
        size_bytes=len(PAYLOAD),
        urls=urls,
        licence="test licence",
        notice=notice,
        family="gfpgan",
    )
    return ModelStore(Manifest((spec,)), data_dir=tmp_path / "data", bundled_dir=tmp_path)


def test_good_file_downloads_verifies_and_renames(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    seen: list[tuple[int, int | None]] = []
    result = download_model(store, "demo", progress=lambda d, t: seen.append((d, t)))
    final = store.models_dir / "demo.onnx"
    assert result.path == final and not result.already_present
    assert final.read_bytes() == PAYLOAD
    assert not store.part_path(store.spec("demo")).exists()
    assert stamp_path(final).is_file()
    assert seen[-1] == (len(PAYLOAD), len(PAYLOAD))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert "range" not in behaviour.requests[0]
    assert store.status("demo").state == "ready"
    assert store.resolve("demo") == final


def test_corrupt_file_is_deleted_with_a_clear_error(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    behaviour.body = PAYLOAD[:-1] + bytes([PAYLOAD[-1] ^ 0xFF])
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    with pytest.raises(ChecksumMismatch, match=r"expected [0-9a-f]{64}; it was deleted"):
        download_model(store, "demo")
    assert not (store.models_dir / "demo.onnx").exists()
    assert not store.part_path(store.spec("demo")).exists()
    with pytest.raises(ModelMissingError, match="fusecam models download demo"):
        store.resolve("demo")


def test_interrupted_download_resumes_with_range(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    behaviour.cut_after, behaviour.cut_requests = 1_000_000, 1
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    part = store.part_path(store.spec("demo"))
    with pytest.raises(DownloadError, match="bytes kept"):
        download_model(store, "demo", retries=0)
    assert part.stat().st_size == 1_000_000
    assert store.status("demo").state == "partial"

    result = download_model(store, "demo")
    assert behaviour.requests[-1]["range"] == "bytes=1000000-"
    assert result.resumed_from == 1_000_000
    assert result.bytes_fetched == len(PAYLOAD) - 1_000_000
    assert (store.models_dir / "demo.onnx").read_bytes() == PAYLOAD


def test_a_dropped_connection_is_retried_in_the_same_call(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    behaviour.cut_after, behaviour.cut_requests = 700_000, 2
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    result = download_model(store, "demo", retries=2)
    assert len(behaviour.requests) == 3
    assert behaviour.requests[1]["range"] == "bytes=700000-"
    assert behaviour.requests[2]["range"] == "bytes=1400000-"
    assert result.path.read_bytes() == PAYLOAD


def test_server_without_range_support_restarts_cleanly(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    behaviour.honour_range = False
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    part = store.part_path(store.spec("demo"))
    store.models_dir.mkdir(parents=True)
    part.write_bytes(PAYLOAD[:5000])
    result = download_model(store, "demo")
    assert behaviour.requests[0]["range"] == "bytes=5000-"
    assert result.path.read_bytes() == PAYLOAD  # a 200 reply overwrote, not appended


def test_hand_placed_file_is_accepted_without_network(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    store.models_dir.mkdir(parents=True)
    (store.models_dir / "demo.onnx").write_bytes(PAYLOAD)
    assert store.status("demo").state == "unverified"
    assert store.resolve("demo") == store.models_dir / "demo.onnx"  # hashed once
    assert store.status("demo").state == "ready"
    result = download_model(store, "demo")
    assert result.already_present
    assert behaviour.requests == []


def test_hand_placed_wrong_file_is_refused_then_replaced(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, _ = server
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    store.models_dir.mkdir(parents=True)
    (store.models_dir / "demo.onnx").write_bytes(b"not the model")
    with pytest.raises(ModelCorruptError, match="not the expected file"):
        store.resolve("demo")
    assert (store.models_dir / "demo.onnx").exists()  # the user's file is not deleted
    download_model(store, "demo")
    assert (store.models_dir / "demo.onnx").read_bytes() == PAYLOAD


def test_cancel_keeps_the_part_for_a_resume(tmp_path: Path, server: tuple[str, Behaviour]) -> None:
    base, behaviour = server
    store = _store(tmp_path, (f"{base}/demo.onnx",))
    progress: list[int] = []
    with pytest.raises(DownloadCancelled):
        download_model(
            store,
            "demo",
            progress=lambda d, t: progress.append(d),
            cancel=lambda: len(progress) > 2,
        )
    kept = store.part_path(store.spec("demo")).stat().st_size
    assert 0 < kept < len(PAYLOAD)
    result = download_model(store, "demo")
    assert result.resumed_from == kept
    assert behaviour.requests[-1]["range"] == f"bytes={kept}-"


def test_licence_must_be_accepted_before_any_request(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    store = _store(tmp_path, (f"{base}/demo.onnx",), notice="research use only")
    with pytest.raises(LicenceNotAccepted):
        download_model(store, "demo")
    assert behaviour.requests == []
    assert download_model(store, "demo", accept_licence=True).path.is_file()


def test_a_failing_mirror_falls_through_to_the_next(
    tmp_path: Path, server: tuple[str, Behaviour]
) -> None:
    base, behaviour = server
    store = _store(tmp_path, (f"{base}/gone.onnx", f"{base}/demo.onnx"))
    behaviour.status = 404
    with pytest.raises(DownloadError, match="HTTP 404"):
        download_model(store, "demo")
    assert len(behaviour.requests) == 2  # a 404 is not retried on the same mirror
    behaviour.status = 200
    assert download_model(store, "demo").path.read_bytes() == PAYLOAD


def test_unreachable_server_names_the_url(tmp_path: Path) -> None:
    store = _store(tmp_path, ("http://127.0.0.1:9/demo.onnx",))
    with pytest.raises(DownloadError, match=r"127\.0\.0\.1:9/demo\.onnx"):
        download_model(store, "demo", retries=0, timeout_s=2)
