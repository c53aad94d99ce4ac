"""Video files the product writes (`fusecam swap` outputs, recordings), through PyAV.

Why PyAV and not OpenCV's VideoWriter: OpenCV's `write` returns nothing and swallows
FFmpeg's errors, so a full disk produced an unplayable file reported as a success. PyAV
(FFmpeg's libraries, bundled in its wheels) raises on every failed write, can write the
crash-safe containers a recording needs, and can copy an audio track from the target.

A `VideoOutput` writes to a temporary name beside the final one (engine.core.atomic),
and `commit()` closes the file, checks that every frame is there and decodes, and only
then renames it. Codecs: H.264 in .mp4/.mov where PyAV has an encoder for it (its
wheels bundle libx264; engine.outputs.codecs finds it), MPEG-4 Part 2 as the fallback;
Motion JPEG in .avi, lossless FFV1 in .mkv. `VideoFileWriter.encoder` says which ran.

Crash-safe mode (recordings): .mp4/.mov are written fragmented (a self-contained
fragment per keyframe, no index needed at the end), .mkv and .avi flush every packet;
if the process dies, the temporary file plays up to its last fragment or cluster.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np

from engine.core.atomic import AtomicFile, describe_os_error
from engine.core.leftovers import hold
from engine.core.types import Frame
from engine.outputs.codecs import Encoder, video_encoder


class VideoWriteError(OSError):
    """A video could not be written or did not check out; the message names the file."""


@dataclass(frozen=True, slots=True)
class VideoFormat:
    container: str
    codec: str
    pix_fmt: str
    bits_per_pixel: float | None  # bit rate per pixel per frame; None: lossless
    fragmented: bool  # an ISO-BMFF container: fragment it in crash-safe mode


_MP4 = VideoFormat("mp4", "mpeg4", "yuv420p", 0.5, True)
# Bit rates as OpenCV's writer chose them (0.5 bit per pixel per frame for MPEG-4;
# MJPEG at 2 bits matches its JPEG quality 95), so outputs look as they did.
FORMATS: dict[str, VideoFormat] = {
    ".mp4": _MP4,
    ".m4v": _MP4,
    ".mov": VideoFormat("mov", "mpeg4", "yuv420p", 0.5, True),
    ".avi": VideoFormat("avi", "mjpeg", "yuvj420p", 2.0, False),
    ".mkv": VideoFormat("matroska", "ffv1", "bgr0", None, False),
}
_GOP = 12  # frames per keyframe: a crash loses at most one fragment of this length


def video_format(path: Path) -> VideoFormat:
    """The format a file name asks for; VideoWriteError for one not supported."""
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise VideoWriteError(
            f"{path}: unsupported video format {path.suffix.lower()!r} (use .mp4, .avi, .mkv)"
        )
    return found


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return describe_os_error(exc)
    code = getattr(exc, "errno", None)
    if code == errno.ENOSPC:
        return "disk full"
    return str(exc)


class VideoFileWriter:
    """Frames in, one video stream out; every FFmpeg error raised as VideoWriteError.

    4:2:0 codecs need even sizes: an odd row or column is cropped (as OpenCV did).
    """

    def __init__(
        self,
        path: Path,
        fmt: VideoFormat,
        size: tuple[int, int],
        fps: float,
        *,
        crash_safe: bool = False,
        name: Path | None = None,
    ) -> None:
        self.name = name or path  # what messages call it (the final name)
        even = fmt.pix_fmt.startswith("yuv")
        width, height = size
        self.size = (width - width % 2, height - height % 2) if even else size
        options: dict[str, str] = {}
        if crash_safe:
            options["flush_packets"] = "1"
            if fmt.fragmented:
                options["movflags"] = "frag_keyframe+empty_moov+default_base_moof"
        rate = Fraction(fps).limit_denominator(1001)
        # MPEG-4 Part 2 is the fallback of the H.264 formats; a recording encodes live.
        self.encoder = (
            video_encoder(fmt.codec, live=crash_safe)
            if fmt.codec == "mpeg4"
            else Encoder(fmt.codec)
        )
        try:
            self.container: Any = av.open(str(path), "w", format=fmt.container, options=options)
            stream = self.container.add_stream(
                self.encoder.codec, rate=rate, options=self.encoder.options
            )
            stream.width, stream.height = self.size
            stream.pix_fmt = fmt.pix_fmt
            stream.time_base = 1 / rate
            stream.codec_context.gop_size = _GOP
            if fmt.bits_per_pixel is not None and not self.encoder.is_h264:  # H.264: crf
                pixels_per_s = self.size[0] * self.size[1] * float(rate)
                stream.codec_context.bit_rate = round(fmt.bits_per_pixel * pixels_per_s)
        except (av.FFmpegError, OSError, ValueError) as exc:
            raise VideoWriteError(f"{self.name}: cannot open for writing ({_reason(exc)})") from exc
        self.stream: Any = stream
        self.frames = 0
        self._closed = False

    def write(self, frame: Frame) -> None:
        width, height = self.size
        if (frame.shape[1], frame.shape[0]) != self.size:
            frame = np.ascontiguousarray(frame[:height, :width])
        try:
            picture = av.VideoFrame.from_ndarray(frame, format="bgr24")
            picture.pts = self.frames
            for packet in self.stream.encode(picture):
                self.container.mux(packet)
        except (av.FFmpegError, OSError) as exc:
            raise VideoWriteError(
                f"{self.name}: writing frame {self.frames + 1} failed ({_reason(exc)})"
            ) from exc
        self.frames += 1

    def close(self) -> None:
        """Flush the encoder and write the container's trailer (index, sizes)."""
        if self._closed:
            return
        self._closed = True
        try:
            for packet in self.stream.encode(None):
                self.container.mux(packet)
            self.container.close()
        except (av.FFmpegError, OSError) as exc:
            self._release()
            raise VideoWriteError(
                f"{self.name}: finishing the file failed ({_reason(exc)})"
            ) from exc

    def abort(self) -> None:
        """Release the file without caring whether its end could be written."""
        self._closed = True
        self._release()

    def _release(self) -> None:
        # Already failed: the caller reports the first error, not this one.
        with contextlib.suppress(av.FFmpegError, OSError):
            self.container.close()


def _first_frame_decodes(container: Any, stream: Any) -> bool:
    return any(packet.size and packet.decode() for packet in container.demux(stream))


def check_video(path: Path, fps: float) -> int:
    """The number of frames in a finished file, after checking that its first frame and
    its last keyframe group decode. The count is the last frame's timestamp (frames are
    written at consecutive ones), so the check costs the same for a minute or an hour.
    Raises VideoWriteError when the file does not play to its end."""
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise VideoWriteError(f"{path}: no video stream")
            stream = container.streams.video[0]
            if not _first_frame_decodes(container, stream):
                raise VideoWriteError(f"{path}: the first frame does not decode")
            # The end: back to the last keyframe, then every frame from there decodes.
            container.seek(2**62, stream=stream, backward=True, any_frame=False)
            last = None
            for packet in container.demux(stream):
                for frame in packet.decode():
                    last = frame.pts
            if last is None:
                raise VideoWriteError(f"{path}: the last frames do not decode")
            return round(float(last * stream.time_base) * fps) + 1
    except VideoWriteError:
        raise
    except (av.FFmpegError, OSError) as exc:
        raise VideoWriteError(f"{path}: does not play ({_reason(exc)})") from exc


def playable_frames(path: Path) -> int:
    """Frames in a file cut short (a recording after a crash or a full disk), counted
    one by one as no index can be trusted; 0 when not even the first frame decodes."""
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            if not _first_frame_decodes(container, stream):
                return 0
            container.seek(0, stream=stream, backward=True)
            return sum(1 for packet in container.demux(stream) if packet.size)
    except (av.FFmpegError, OSError, IndexError):
        return 0


class VideoOutput:
    """A video that appears under `final` only complete and checked.

    `write` frames, then `commit()`; `abort()` (or leaving a `with` block by an
    exception, Ctrl+C included) removes the temporary. In `crash_safe` mode the
    temporary is a playable file named like "rec.x7k2.recording.mp4": a process that
    dies leaves it as the recovery copy, and `failed()` keeps it after a write error.
    """

    def __init__(
        self, final: Path, size: tuple[int, int], fps: float, *, crash_safe: bool = False
    ) -> None:
        self.final = final
        self.fps = fps
        self.crash_safe = crash_safe
        fmt = video_format(final)
        self.file = AtomicFile(final, tag="recording" if crash_safe else "part")
        try:
            self.writer = VideoFileWriter(
                self.file.temp, fmt, size, fps, crash_safe=crash_safe, name=final
            )
        except BaseException:
            self.file.discard()
            raise

    def write(self, frame: Frame) -> None:
        self.writer.write(frame)

    def commit(self, finish: Callable[[Path], None] | None = None) -> int:
        """Finish, check and rename; returns the frames in the file. `finish(temp)` may
        rewrite the closed file before the check (`fusecam swap` muxes the target's
        audio in). On a failure the VideoWriteError says why, and the temporary is gone
        (see `failed`)."""
        relock: int | None = None
        try:
            self.writer.close()
            if finish is not None:
                finish(self.file.temp)
                # `finish` replaced the file: the lock that tells a later run this
                # temporary is in use (engine.core.leftovers) was on the old one.
                relock = os.open(self.file.temp, os.O_RDONLY)
                hold(relock)
            found = check_video(self.file.temp, self.fps)
            if found != self.writer.frames:
                raise VideoWriteError(
                    f"{self.final}: {found} of {self.writer.frames} frames are in the file"
                )
            self.file.commit()
        except OSError as exc:
            raise self.failed(exc) from exc
        except BaseException:
            self.abort()
            raise
        finally:
            if relock is not None:
                os.close(relock)
        return found

    def failed(self, exc: BaseException) -> VideoWriteError:
        """Clean up after `exc` and return the error to raise. The temporary is removed;
        a crash-safe one is kept when some of it plays (a recording's frames cannot be
        made again), and the message says where."""
        reason = str(exc) if isinstance(exc, VideoWriteError) else f"{self.final}: {_reason(exc)}"
        if not self.crash_safe:
            self.abort()
            return VideoWriteError(reason)
        self.writer.abort()
        frames = playable_frames(self.file.temp)
        if frames == 0:
            self.file.discard()
            return VideoWriteError(f"{reason}; nothing playable was left")
        return VideoWriteError(f"{reason}; the {frames} frames before it are in {self.file.temp}")

    def abort(self) -> None:
        self.writer.abort()
        self.file.discard()

    def __enter__(self) -> VideoOutput:
        return self

    def __exit__(self, kind: object, exc: object, traceback: object) -> None:
        if not self.file.committed:
            self.abort()
