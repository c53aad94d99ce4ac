"""When a video file's frames are meant to be seen: the streams' own timestamps (PyAV).

OpenCV hands out frames without saying when each is shown, and `fusecam swap` writes
its output at a constant rate from time 0. Files are not all like that: a phone starts
its sound before its picture (lin_manuel_miranda_1.mp4: video at 0.852 s, audio at
0.008 s), and phones and screen recorders write variable frame rates. Read here once,
before the swap, these timestamps let the swap place every frame where the target shows
it and shift the audio by the same origin, so picture and sound stay in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from numpy.typing import NDArray

# Outside this range a computed rate is a damaged file's, not a video's.
_MIN_FPS, _MAX_FPS = 1.0, 240.0


@dataclass(frozen=True, slots=True)
class VideoTiming:
    """A video stream's presentation times, in seconds on the file's clock."""

    times_s: NDArray[np.float64]  # every frame's, in display order (sorted)
    rate: Fraction  # the constant rate to write them at (the usual gap's)

    @property
    def start_s(self) -> float:
        return float(self.times_s[0])

    @property
    def variable(self) -> bool:
        """Whether some frame sits more than a third of a frame off the constant grid."""
        grid = self.start_s + np.arange(len(self.times_s)) / float(self.rate)
        return bool(np.max(np.abs(self.times_s - grid)) * float(self.rate) > 1 / 3)

    def repeats(self) -> NDArray[np.int64]:
        """How many times each frame is written on the constant-rate grid of `rate` that
        starts at the first frame: 1 for a constant-rate file; 0 (dropped) or 2+
        (repeated) where a variable-rate file shows frames faster or slower, so that
        each frame appears at its own time to within half a frame."""
        rate = float(self.rate)
        slots = np.rint((self.times_s - self.start_s) * rate).astype(np.int64)
        ends = np.append(slots[1:], slots[-1] + 1)
        return np.maximum(ends - slots, 0) if len(slots) else slots


def read_timing(path: Path, fallback_fps: float) -> VideoTiming | None:
    """The first video stream's frame times; None when the file gives none (no
    timestamps, unreadable by PyAV): the caller then keeps frames as they come."""
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            times = [
                float(packet.pts * packet.time_base)
                for packet in container.demux(stream)
                if packet.size and packet.pts is not None and not packet.is_discard
            ]
    except (av.FFmpegError, OSError, IndexError):
        return None
    if not times:
        return None
    times_s = np.sort(np.asarray(times, np.float64))
    # The usual gap between frames, not the average: a phone's clip that slows down now
    # and then keeps every frame of its normal rate and repeats frames where it slowed.
    steps = np.diff(times_s)
    steps = steps[steps > 0]
    fps = 1 / float(np.median(steps)) if len(steps) else fallback_fps
    if not _MIN_FPS <= fps <= _MAX_FPS:
        fps = fallback_fps
    return VideoTiming(times_s, Fraction(fps).limit_denominator(1001))
