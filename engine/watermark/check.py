"""Checking a file or a stream for the mark: an image, a video's frames, or the frames a
live stream sends (Fusecam's MJPEG, or anything FFmpeg can open from a URL)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from engine.core.imageio import IMAGE_SUFFIXES, ImageReadError, read_image
from engine.core.types import Frame
from engine.watermark.detect import Detection, detect

URL_SCHEMES = ("http://", "https://", "rtsp://", "rtmp://", "udp://", "tcp://", "srt://")
_STREAM_TIMEOUT_S = 10.0


class Unreadable(ValueError):
    """The target is not an image, video or stream that could be read."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    target: str
    frames: int  # frames checked
    detections: tuple[Detection, ...]

    @property
    def marked_frames(self) -> int:
        return sum(d.marked for d in self.detections)

    @property
    def marked(self) -> bool:
        """The mark is there: in at least half the frames checked (a stream's first
        frames may be a player's black ones)."""
        return self.frames > 0 and 2 * self.marked_frames >= self.frames

    @property
    def too_small(self) -> bool:
        """Not marked, and every frame checked was too small to decide
        (engine.watermark.detect.Detection.too_small)."""
        return not self.marked and all(d.too_small for d in self.detections)

    @property
    def best(self) -> Detection:
        return max(self.detections, key=lambda d: (d.marked, d.confidence))

    def describe(self) -> str:
        if self.frames == 1:
            return f"{self.target}: {self.best.describe()}"
        what = "too small to decide" if self.too_small else "not marked"
        return (
            f"{self.target}: {'marked' if self.marked else what} in "
            f"{self.marked_frames} of {self.frames} frames; best: {self.best.describe()}"
        )


def is_url(target: str) -> bool:
    return target.lower().startswith(URL_SCHEMES)


def check(target: str, max_frames: int = 30) -> CheckResult:
    """Detect the mark in `target` (a path or URL): one image, or up to `max_frames`
    frames of a video (spread over it) or a stream (the first ones it sends)."""
    if not is_url(target) and Path(target).suffix.lower() in IMAGE_SUFFIXES:
        try:
            frame = read_image(target)
        except ImageReadError as exc:
            raise Unreadable(str(exc)) from None
        return CheckResult(target, 1, (detect(frame),))
    if not is_url(target) and not Path(target).is_file():
        raise Unreadable(f"{target}: no such file")
    detections = tuple(detect(f) for f in _frames(target, max_frames))
    if not detections:
        raise Unreadable(f"{target}: no frames could be decoded")
    return CheckResult(target, len(detections), detections)


def _frames(target: str, max_frames: int) -> Iterator[Frame]:
    options = {"timeout": str(int(_STREAM_TIMEOUT_S * 1e6))} if is_url(target) else {}
    try:
        container = av.open(target, options=options, timeout=_STREAM_TIMEOUT_S)
    except (av.FFmpegError, OSError) as exc:
        raise Unreadable(f"{target}: not a readable video or stream ({exc})") from None
    with container:
        if not container.streams.video:
            raise Unreadable(f"{target}: has no video")
        stream = container.streams.video[0]
        # A file: every n-th frame, so the frames checked span it; a stream: the first.
        total = stream.frames if not is_url(target) else 0
        step = max(1, total // max_frames) if total else 1
        taken = 0
        try:
            for i, frame in enumerate(container.decode(stream)):
                if i % step:
                    continue
                yield np.ascontiguousarray(frame.to_ndarray(format="bgr24"))
                taken += 1
                if taken >= max_frames:
                    return
        except (av.FFmpegError, OSError) as exc:
            if taken == 0:
                raise Unreadable(f"{target}: could not decode ({exc})") from None
