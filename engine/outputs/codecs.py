"""Which H.264 encoder the installed PyAV (FFmpeg) has, found by encoding one frame.

PyAV's wheels bundle FFmpeg with libx264; other builds may have only OpenH264 or a
platform encoder, or none. A listed hardware encoder (NVENC, VideoToolbox, Media
Foundation) can still fail to open without its device, so each candidate is tried on a
small picture once per process. Without any, callers fall back to MPEG-4 Part 2 (or, for
the stream, MPEG-2 video), FFmpeg's own encoders that every build has, and say so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache

import av
import numpy as np

log = logging.getLogger(__name__)

# Software first (they always run), then the platforms' own.
H264_ENCODERS = ("libx264", "libopenh264", "h264_videotoolbox", "h264_mf", "h264_nvenc")
# Per encoder: options for a file (quality first) and for live use (little latency/CPU).
_FILE_OPTIONS = {"libx264": {"preset": "veryfast", "crf": "20"}}
_LIVE_OPTIONS = {"libx264": {"preset": "ultrafast", "tune": "zerolatency", "crf": "23"}}
NAMES = {"mpeg4": "MPEG-4 Part 2", "mpeg2video": "MPEG-2 video", "mjpeg": "Motion JPEG",
         "ffv1": "FFV1 (lossless)"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Encoder:
    codec: str  # the FFmpeg encoder's name, e.g. "libx264"
    options: dict[str, str] = field(default_factory=dict)

    @property
    def is_h264(self) -> bool:
        return self.codec in H264_ENCODERS

    def describe(self) -> str:
        """What a user reads: "H.264 with libx264", or "MPEG-4 Part 2" and why."""
        if self.is_h264:
            return f"H.264 with {self.codec}"
        name = NAMES.get(self.codec, self.codec)
        if self.codec in ("mpeg4", "mpeg2video"):
            return f"{name} — this PyAV has no working H.264 encoder"
        return name


def _opens(codec: str) -> bool:
    """Whether `codec` encodes a small picture here (its device and library present)."""
    try:
        context = av.CodecContext.create(codec, "w")
        context.width, context.height = 64, 64
        context.pix_fmt = "yuv420p"
        context.time_base = Fraction(1, 30)
        context.open()
        picture = av.VideoFrame.from_ndarray(np.zeros((64, 64, 3), np.uint8), format="bgr24")
        picture = picture.reformat(format="yuv420p")
        picture.pts = 0
        context.encode(picture)
        context.encode(None)
    except (av.FFmpegError, ValueError, OSError) as exc:
        log.debug("encoder %s not usable: %s", codec, exc)
        return False
    return True


@cache
def h264_encoder() -> str | None:
    """The first H.264 encoder that works here, or None."""
    return next((codec for codec in H264_ENCODERS if _opens(codec)), None)


def video_encoder(fallback: str, *, live: bool = False) -> Encoder:
    """H.264 where an encoder works, else `fallback` (an FFmpeg built-in encoder)."""
    codec = h264_encoder()
    if codec is None:
        return Encoder(fallback)
    options = (_LIVE_OPTIONS if live else _FILE_OPTIONS).get(codec, {})
    return Encoder(codec, dict(options))
