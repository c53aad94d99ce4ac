"""Records the output (optionally side by side with the input) to a video file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from engine.packet import FramePacket
from engine.pipeline import Engine
from engine.sinks.base import QueueSink
from engine.threads import ErrorCallback
from engine.types import Frame

# FFV1 is lossless (for quality judging); mp4v plays everywhere without extra codecs.
_CODECS = {".mp4": "mp4v", ".m4v": "mp4v", ".mov": "mp4v", ".avi": "MJPG", ".mkv": "FFV1"}


class RecorderError(OSError):
    """The recording could not be started or written."""


def open_writer(path: Path, size: tuple[int, int], fps: float) -> cv2.VideoWriter:
    suffix = path.suffix.lower()
    if suffix not in _CODECS:
        raise RecorderError(f"{path}: unsupported video format {suffix!r} (use .mp4, .avi, .mkv)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecorderError(f"{path}: cannot create folder ({exc.strerror or exc})") from exc
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*_CODECS[suffix]), fps, size)
    if not writer.isOpened():
        raise RecorderError(f"{path}: cannot open for writing")
    return writer


class Recorder(QueueSink):
    def __init__(
        self,
        engine: Engine,
        path: str | Path,
        fps: float,
        side_by_side: bool = False,
        on_error: ErrorCallback | None = None,
    ) -> None:
        super().__init__("sink-recorder", engine, on_error=on_error)
        self.path = Path(path)
        self.fps = fps
        self.side_by_side = side_by_side
        self._writer: cv2.VideoWriter | None = None
        self._size: tuple[int, int] | None = None

    def _compose(self, packet: FramePacket) -> Frame:
        if not self.side_by_side:
            return packet.result
        return np.hstack([packet.frame, packet.result])

    def consume(self, packet: FramePacket) -> None:
        frame = self._compose(packet)
        size = (frame.shape[1], frame.shape[0])
        if self._writer is None:
            self._writer = open_writer(self.path, size, self.fps)
            self._size = size
        elif size != self._size:
            assert self._size is not None
            frame = cv2.resize(frame, self._size, interpolation=cv2.INTER_AREA)
        self._writer.write(frame)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None
