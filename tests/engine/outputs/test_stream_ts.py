"""The timestamped stream (`/stream.ts`) read by a real client (PyAV/FFmpeg over HTTP):
every frame's presentation time steps exactly as its capture time did, on a source whose
frame intervals are uneven, and the index page tells an OBS user what to add."""

from __future__ import annotations

import itertools
import threading
import time
import urllib.request
from collections.abc import Iterator

import av
import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.types import Frame
from engine.outputs.codecs import h264_encoder
from engine.outputs.stream import StreamConfig, StreamServer
from engine.outputs.stream.ts import TS_CLOCK_HZ
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from tests.engine.stages.passthrough import PassThrough

BITS, CELL_W, CELL_H = 16, 20, 24


def stamp(frame: Frame, number: int) -> Frame:
    """`number` as a row of black and white cells across the top of the frame."""
    out = frame.copy()
    for bit in range(BITS):
        out[:CELL_H, bit * CELL_W : (bit + 1) * CELL_W] = 255 if number >> bit & 1 else 0
    return out


def read_stamp(frame: Frame) -> int:
    cells = frame[4 : CELL_H - 4, : BITS * CELL_W].reshape(CELL_H - 8, BITS, CELL_W, -1)
    bits = cells.mean(axis=(0, 2, 3)) > 128
    return int(sum(1 << i for i, on in enumerate(bits) if on))


class UnevenSource(DemoSource):
    """The demo picture, numbered, at uneven intervals: every fourth frame comes 50 ms
    late (a camera that stalls; capture times are taken as frames arrive)."""

    def _read(self) -> Frame | None:
        frame = super()._read()
        assert frame is not None
        if self._tick % 4 == 0:
            time.sleep(0.05)
        return stamp(frame, self._tick)


@pytest.fixture
def served() -> Iterator[tuple[StreamServer, dict[int, int]]]:
    """A real engine and stream server; and each number's capture time (ns), as the
    engine published it."""
    session = LiveSession(Engine([PassThrough()]), UnevenSource(size=(320, 240)))
    captured: dict[int, int] = {}
    lock = threading.Lock()

    def published(packet: FramePacket) -> None:
        with lock:
            captured[read_stamp(packet.frame)] = packet.capture_ns

    session.engine.add_listener(published)
    session.start()
    assert session.wait_frames(1, timeout=10)
    server = StreamServer(session.engine, StreamConfig(port=0))
    server.start()
    yield server, captured
    assert server.stop(5.0)
    session.stop()


def test_time_stamps_step_with_the_capture_clock(
    served: tuple[StreamServer, dict[int, int]],
) -> None:
    server, captured = served
    with av.open(server.ts_url, format="mpegts", timeout=10) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == ("h264" if h264_encoder() else "mpeg2video")
        assert stream.time_base.denominator == TS_CLOCK_HZ
        shown: list[tuple[int, int]] = []  # (number, pts)
        for picture in container.decode(stream):
            shown.append((read_stamp(picture.to_ndarray(format="bgr24")), picture.pts))
            if len(shown) == 40:
                break
    numbers = [n for n, _ in shown]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    steps = []
    for (n0, p0), (n1, p1) in itertools.pairwise(shown):
        capture_step = (captured[n1] - captured[n0]) * TS_CLOCK_HZ / 1e9
        assert abs((p1 - p0) - capture_step) <= 1, (n0, n1, p1 - p0, capture_step)
        steps.append(p1 - p0)
    # The uneven source shows in the times (a fixed-rate guess would hide it).
    in_ms = np.array(steps) * 1000 / TS_CLOCK_HZ
    assert in_ms.min() < 45 and in_ms.max() > 70


def test_the_index_page_tells_obs_users_what_to_add(
    served: tuple[StreamServer, dict[int, int]],
) -> None:
    server, _ = served
    with urllib.request.urlopen(server.page_url, timeout=10) as reply:
        page = reply.read().decode()
    assert "Media Source" in page and "Local File" in page
    assert f"<code>{server.ts_url}</code>" in page
    assert "<code>mpegts</code>" in page
    assert server.url in page  # the MJPEG stream, for browsers
