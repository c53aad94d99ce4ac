"""One JPEG per published frame, shared by every client of the stream.

The encoder is a newest-wins sink: while it encodes, newer frames replace each other and
only the newest is encoded next. It encodes only while someone watches the stream.
A snapshot reuses the stream's JPEG when it is of the current frame, and otherwise
encodes the current frame once for every concurrent snapshot request of it.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import cv2

from engine.core.packet import FramePacket
from engine.core.threads import ErrorCallback
from engine.outputs.base import FrameFeed, LatestSink
from engine.outputs.stream.watchers import Watched

BOUNDARY = "fusecamframe"


class EncodedFrame(NamedTuple):
    version: int  # increases by one per encoded frame
    jpeg: bytes
    part: bytes  # the multipart chunk (boundary, headers, JPEG), built once for all clients


class JpegFeed(Watched, LatestSink):
    def __init__(self, feed: FrameFeed, quality: int, on_error: ErrorCallback | None = None):
        super().__init__("stream-encoder", feed, on_error)
        self.quality = quality
        self._params = [cv2.IMWRITE_JPEG_QUALITY, quality]
        self._cond = threading.Condition()
        self._latest: EncodedFrame | None = None
        self._latest_packet: FramePacket | None = None
        self._snapshot_lock = threading.Lock()
        self._snapshot: tuple[FramePacket, bytes] | None = None
        self._watchers = 0
        self._closed = False
        self.encoded = 0

    @property
    def version(self) -> int:
        """The version of the newest encoded frame (0 before the first)."""
        latest = self._latest
        return 0 if latest is None else latest.version

    def wait_newer(self, version: int, timeout: float) -> EncodedFrame | None:
        """The newest encoded frame once it is newer than `version`; None on timeout/close."""
        with self._cond:
            self._cond.wait_for(
                lambda: (
                    self._closed or (self._latest is not None and self._latest.version > version)
                ),
                timeout,
            )
            latest = self._latest
            if self._closed or latest is None or latest.version <= version:
                return None
            return latest

    def snapshot(self, timeout: float) -> bytes | None:
        """The current frame as JPEG (waiting up to `timeout` for a first frame)."""
        _, packet = self.engine.published.read()
        if packet is None:
            _, packet = self.engine.published.wait_newer(0, timeout)
        if packet is None:
            return None
        with self._cond:
            if self._latest is not None and self._latest_packet is packet:
                return self._latest.jpeg
        with self._snapshot_lock:
            if self._snapshot is None or self._snapshot[0] is not packet:
                self._snapshot = (packet, self._jpeg(packet))
            return self._snapshot[1]

    def close_feed(self) -> None:
        """Wake every waiting client for shutdown."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    # --- encoding ---------------------------------------------------------------------
    def consume(self, packet: FramePacket) -> None:
        if self._watchers > 0:
            self._encode(packet)

    def _jpeg(self, packet: FramePacket) -> bytes:
        ok, buffer = cv2.imencode(".jpg", packet.result, self._params)
        if not ok:
            raise RuntimeError(f"JPEG encoding failed for frame {packet.frame_id}")
        return buffer.tobytes()

    def _encode(self, packet: FramePacket) -> None:
        """Encoder thread only: encode the newest frame and hand it to every client."""
        jpeg = self._jpeg(packet)
        header = (
            f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
        ).encode("ascii")
        with self._cond:
            version = (self._latest.version if self._latest else 0) + 1
            self._latest = EncodedFrame(version, jpeg, header + jpeg + b"\r\n")
            self._latest_packet = packet
            self.encoded += 1
            self._cond.notify_all()
