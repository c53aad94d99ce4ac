"""Records the output (optionally side by side with the input) to a video file.

The recording is written crash-safe under a temporary name beside the requested one
(engine.outputs.video_file): a clean stop checks it and renames it into place; a
process that dies leaves the temporary, which plays up to its last second or so; a
write error (a full disk) stops the recording, keeps what plays and says where.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from engine.core.packet import FramePacket
from engine.core.threads import ErrorCallback
from engine.core.types import Frame
from engine.outputs.base import FrameFeed, QueueSink
from engine.outputs.video_file import VideoOutput, VideoWriteError, video_format

# Gaps longer than this restart the timeline instead of being filled with repeats.
_MAX_GAP_S = 2.0


class RecorderError(OSError):
    """The recording could not be started or written."""


def check_recording_path(path: Path) -> None:
    """Fail before recording starts: a known format, a file name, a writable folder."""
    try:
        video_format(path)
    except VideoWriteError as exc:
        raise RecorderError(str(exc)) from None
    if path.is_dir():
        raise RecorderError(f"{path}: is a folder; give a file name to record to")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecorderError(f"{path}: cannot create folder ({exc.strerror or exc})") from exc
    if not os.access(path.parent, os.W_OK):
        raise RecorderError(f"{path}: folder {path.parent} is not writable")


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
        check_recording_path(self.path)
        self.fps = fps
        self.side_by_side = side_by_side
        self._output: VideoOutput | None = None
        self._size: tuple[int, int] | None = None
        self.finished = False  # the file is complete under `path`
        # The file follows the capture clock (see `_gap`); `written` counts frames in it.
        self._origin_ns: int | None = None
        self._previous: Frame | None = None
        self.written = 0
        self.repeated = 0
        self.codec = ""  # what encodes the file, e.g. "H.264 (libx264)", once it is open

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
        if self._output is None:
            try:
                self._output = VideoOutput(self.path, size, self.fps, crash_safe=True)
            except (VideoWriteError, OSError) as exc:
                raise RecorderError(str(exc)) from exc
            self._size = size
            self.codec = self._output.writer.encoder.describe()
        elif size != self._size:
            assert self._size is not None
            frame = cv2.resize(frame, self._size, interpolation=cv2.INTER_AREA)
        try:
            self._write(self._output, frame, gap)
        except VideoWriteError as exc:
            output, self._output = self._output, None
            raise RecorderError(f"recording stopped: {output.failed(exc)}") from exc

    def _write(self, output: VideoOutput, frame: Frame, gap: int) -> None:
        if self._previous is not None:
            for _ in range(gap):  # hold the previous picture over the dropped slots
                output.write(self._previous)
                self.repeated += 1
                self.written += 1
        output.write(frame)
        self.written += 1
        self._previous = frame

    @property
    def temp_path(self) -> Path | None:
        """The file being written (the copy a crash would leave), once a frame came."""
        output = self._output
        return None if output is None else output.file.temp

    def close(self) -> None:
        """Check the file and give it its name (sink thread, as it ends). A failure is
        raised, so it becomes the recorder's error."""
        output, self._output = self._output, None
        if output is None:
            return
        try:
            output.commit()
        except VideoWriteError as exc:
            raise RecorderError(str(exc)) from exc
        self.finished = True
