"""Records the output (optionally side by side with the input) to a video file."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from engine.core.packet import FramePacket
from engine.core.threads import ErrorCallback
from engine.core.types import Frame
from engine.outputs.base import FrameFeed, QueueSink

# FFV1 is lossless (for quality judging); mp4v plays everywhere without extra codecs.
_CODECS = {".mp4": "mp4v", ".m4v": "mp4v", ".mov": "mp4v", ".avi": "MJPG", ".mkv": "FFV1"}


# Gaps longer than this restart the timeline instead of being filled with repeats.
_MAX_GAP_S = 2.0


class RecorderError(OSError):
    """The recording could not be started or written."""


def check_output_path(path: Path) -> None:
    """Fail before recording starts: a known format and a folder we can write into."""
    suffix = path.suffix.lower()
    if suffix not in _CODECS:
        raise RecorderError(f"{path}: unsupported video format {suffix!r} (use .mp4, .avi, .mkv)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecorderError(f"{path}: cannot create folder ({exc.strerror or exc})") from exc
    if not os.access(path.parent, os.W_OK):
        raise RecorderError(f"{path}: folder {path.parent} is not writable")


def open_writer(path: Path, size: tuple[int, int], fps: float) -> cv2.VideoWriter:
    check_output_path(path)
    fourcc = cv2.VideoWriter.fourcc(*_CODECS[path.suffix.lower()])
    writer = cv2.VideoWriter(str(path), fourcc, fps, size)
    if not writer.isOpened():
        raise RecorderError(f"{path}: cannot open for writing")
    return writer


class Recorder(QueueSink):
    def __init__(
        self,
        engine: FrameFeed,
        path: str | Path,
        fps: float,
        side_by_side: bool = False,
        on_error: ErrorCallback | None = None,
    ) -> None:
        super().__init__("sink-recorder", engine, on_error=on_error)
        self.path = Path(path)
        # Checked here, on the caller's thread, so a bad path fails at once, not mid-stream.
        check_output_path(self.path)
        self.fps = fps
        self.side_by_side = side_by_side
        self._writer: cv2.VideoWriter | None = None
        self._size: tuple[int, int] | None = None
        # The file follows the capture clock (see `_gap`); `written` counts frames in it.
        self._origin_ns: int | None = None
        self._previous: Frame | None = None
        self.written = 0
        self.repeated = 0

    def _compose(self, packet: FramePacket) -> Frame:
        if not self.side_by_side:
            return packet.result
        return np.hstack([packet.frame, packet.result])

    def _gap(self, packet: FramePacket) -> int:
        """Frame slots between the last written frame and this one, on the capture clock.

        The engine drops frames when it falls behind (newest wins) and cameras deliver
        fewer frames than they announce; writing each frame once would then play the
        file too fast and out of sync with audio recorded beside it. -1: this frame's
        slot is already written (skip it).
        """
        if self._origin_ns is None or packet.capture_ns < self._origin_ns:
            self._origin_ns = packet.capture_ns - round(self.written * 1e9 / self.fps)
        slot = round((packet.capture_ns - self._origin_ns) * self.fps / 1e9)
        gap = slot - self.written
        if gap > _MAX_GAP_S * self.fps:
            # A long pause (source switched, paused): continue after it, no frozen minutes.
            self._origin_ns = packet.capture_ns - round(self.written * 1e9 / self.fps)
            return 0
        return gap

    def consume(self, packet: FramePacket) -> None:
        gap = self._gap(packet)
        if gap < 0:
            return
        frame = self._compose(packet)
        size = (frame.shape[1], frame.shape[0])
        if self._writer is None:
            self._writer = open_writer(self.path, size, self.fps)
            self._size = size
        elif size != self._size:
            assert self._size is not None
            frame = cv2.resize(frame, self._size, interpolation=cv2.INTER_AREA)
        if self._previous is not None:
            for _ in range(gap):  # hold the previous picture over the dropped slots
                self._writer.write(self._previous)
            self.repeated += gap
            self.written += gap
        self._writer.write(frame)
        self.written += 1
        self._previous = frame

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None
