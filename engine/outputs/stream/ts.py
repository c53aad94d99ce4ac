"""The stream as MPEG-TS (`/stream.ts`): H.264 (MPEG-2 video without an H.264 encoder)
with presentation times from the capture clock, for OBS's Media Source and ffmpeg.

MJPEG parts carry no time: a player assumes 25 fps whatever the real rate (24.8-30
measured), so a Media Source drifts against audio. Here each frame's PTS is its capture
time (90 kHz ticks since the first frame sent), so the player shows it at its true
moment, at whatever rate the camera and engine really run, frames the engine dropped
included (they leave a longer step, not a wrong clock).

One encoder for every client, newest-wins like the JPEG feed, running only while a
client watches. PAT and PMT go out with every frame, so a client may join at any
keyframe (one a second); a client that falls behind waits for the next keyframe
rather than decoding a picture with its references missing.
"""

from __future__ import annotations

import io
import logging
import threading
from fractions import Fraction
from typing import Any, NamedTuple

import av

from engine.core.packet import FramePacket
from engine.core.threads import ErrorCallback
from engine.outputs.base import FrameFeed, LatestSink
from engine.outputs.codecs import Encoder, video_encoder
from engine.outputs.stream.watchers import Watched

log = logging.getLogger(__name__)

TS_CLOCK_HZ = 90_000  # MPEG-TS time stamps count 90 kHz ticks
KEYFRAME_EVERY = 30  # frames: a joining client waits at most about a second
FALLBACK = "mpeg2video"  # a video codec every MPEG-TS reader knows; FFmpeg's own


class TsChunk(NamedTuple):
    version: int  # increases by one per encoded frame (a new encoder starts over at 1)
    keyframe: bool  # a client may start here
    data: bytes  # whole 188-byte TS packets: PAT, PMT and this frame's PES
    pts: int  # in TS_CLOCK_HZ ticks


class _Buffer(io.RawIOBase):
    """Where the muxer writes; each frame's bytes are taken out after it is muxed."""

    def __init__(self) -> None:
        super().__init__()
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.data += b
        return len(b)

    def take(self) -> bytes:
        out, self.data = bytes(self.data), bytearray()
        return out


class _Muxer:
    """An H.264 (or fallback) encoder and an MPEG-TS muxer into memory, for one size."""

    def __init__(self, size: tuple[int, int], encoder: Encoder) -> None:
        self.size = size
        self.buffer = _Buffer()
        self.container: Any = av.open(
            self.buffer,
            "w",
            format="mpegts",
            options={"mpegts_flags": "pat_pmt_at_frames", "flush_packets": "1"},
        )
        stream = self.container.add_stream(encoder.codec, rate=30, options=encoder.options)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        stream.time_base = Fraction(1, TS_CLOCK_HZ)
        stream.codec_context.time_base = Fraction(1, TS_CLOCK_HZ)
        stream.codec_context.gop_size = KEYFRAME_EVERY
        stream.codec_context.max_b_frames = 0  # frames leave in order, at once
        if not encoder.is_h264:
            stream.codec_context.bit_rate = round(2.0 * size[0] * size[1] * 30)
        self.stream: Any = stream

    def encode(self, packet: FramePacket, pts: int) -> tuple[bytes, bool]:
        frame = packet.result
        width, height = self.size
        picture = av.VideoFrame.from_ndarray(frame[:height, :width], format="bgr24")
        picture.pts = pts
        keyframe = False
        for encoded in self.stream.encode(picture):
            keyframe = keyframe or bool(encoded.is_keyframe)
            self.container.mux(encoded)
        return self.buffer.take(), keyframe

    def close(self) -> None:
        try:
            self.container.close()
        except (av.FFmpegError, OSError) as exc:  # it was failing already; say, go on
            log.debug("closing the TS muxer: %s", exc)


class TsFeed(Watched, LatestSink):
    """Encodes the newest frame into TS chunks for every `/stream.ts` client."""

    def __init__(self, feed: FrameFeed, on_error: ErrorCallback | None = None) -> None:
        super().__init__("stream-ts-encoder", feed, on_error)
        self.encoder = video_encoder(FALLBACK, live=True)
        self._cond = threading.Condition()
        self._latest: TsChunk | None = None
        self._muxer: _Muxer | None = None
        self._origin_ns: int | None = None
        self._last_pts = -1
        self._watchers = 0
        self._closed = False
        self.encoded = 0

    def wait_newer(self, version: int, timeout: float) -> TsChunk | None:
        """The newest chunk once it differs from `version`; None on timeout or close."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed or self._differs(version), timeout)
            latest = self._latest
            if self._closed or latest is None or latest.version == version:
                return None
            return latest

    def _differs(self, version: int) -> bool:
        return self._latest is not None and self._latest.version != version

    def close_feed(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    # --- encoder thread -------------------------------------------------------------------
    def consume(self, packet: FramePacket) -> None:
        if self._watchers == 0:
            self._reset()  # the next client starts a fresh stream at time 0
            return
        height, width = packet.result.shape[:2]
        size = (width - width % 2, height - height % 2)  # 4:2:0 needs even sizes
        if self._muxer is None or self._muxer.size != size:
            self._reset()
            self._muxer = _Muxer(size, self.encoder)
            self._origin_ns = packet.capture_ns
        assert self._origin_ns is not None
        pts = round((packet.capture_ns - self._origin_ns) * TS_CLOCK_HZ / 1e9)
        pts = max(pts, self._last_pts + 1)  # strictly increasing, whatever the clock did
        self._last_pts = pts
        data, keyframe = self._muxer.encode(packet, pts)
        with self._cond:
            version = (self._latest.version if self._latest else 0) + 1
            self._latest = TsChunk(version, keyframe, data, pts)
            self.encoded += 1
            self._cond.notify_all()

    def _reset(self) -> None:
        if self._muxer is not None:
            self._muxer.close()
        self._muxer = None
        self._last_pts = -1
        with self._cond:
            self._latest = None

    def close(self) -> None:
        self._reset()
