"""Offline processing (`fusecam swap`): one image or a whole video through the live stages."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from engine.core.imageio import IMAGE_SUFFIXES, read_image, write_image
from engine.core.packet import FramePacket
from engine.outputs.audio_mux import AudioMuxError, add_audio, has_audio
from engine.outputs.recorder import open_writer
from engine.runtime.pipeline import Engine
from engine.sources.base import SourceError
from engine.sources.video import VideoFileSource

Progress = Callable[[int, int | None], None]


def is_image(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


def swap_image(engine: Engine, target: Path, output: Path) -> FramePacket:
    frame = read_image(target)
    frame.flags.writeable = False
    packet = engine.process(FramePacket(0, time.monotonic_ns(), frame))
    write_image(output, packet.result)
    return packet


def swap_video(engine: Engine, target: Path, output: Path, progress: Progress | None = None) -> int:
    """Process every frame in order (no drops); returns the number of frames written."""
    source = VideoFileSource(target, realtime=False)
    info = source.open()
    writer = open_writer(output, (info.width, info.height), info.fps)
    count = 0
    try:
        for frame in source.iter_frames():
            frame.flags.writeable = False
            packet = engine.process(FramePacket(count, time.monotonic_ns(), frame))
            writer.write(packet.result)
            count += 1
            if progress is not None:
                progress(count, info.frame_count)
    finally:
        writer.release()
    if count == 0:
        raise SourceError(f"{target}: no frames could be read")
    return count


def keep_audio(target: Path, output: Path) -> str:
    """Mux the target's audio into the swapped video: "" when the target has none, else
    what was done; AudioMuxError when it failed (the video itself is kept)."""
    if not has_audio(target):
        return ""
    return add_audio(output, target)


__all__ = ["AudioMuxError", "is_image", "keep_audio", "swap_image", "swap_video"]
