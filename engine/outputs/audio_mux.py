"""Putting a video's sound back: `fusecam swap` muxes the target's audio track into the
finished video before it is checked and named (engine.runtime.offline; PyAV, FFmpeg's
libraries).

The audio packets are copied as they are (no re-encoding, no quality loss) when the output
container takes that codec, else encoded to AAC. Both files are read in step, packets
interleaved by time, so memory stays flat however long the video is. The result replaces
the video file only once it is complete.
"""

from __future__ import annotations

import contextlib
import heapq
import os
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import av


class AudioMuxError(RuntimeError):
    """The audio could not be added; the video without it is left untouched."""


def has_audio(path: Path) -> bool:
    try:
        with av.open(str(path)) as container:
            return bool(container.streams.audio)
    except (av.FFmpegError, OSError):
        return False


def add_audio(video: Path, audio_source: Path) -> str:
    """Mux `audio_source`'s first audio track into `video` in place; returns how ("copied
    aac", "encoded to aac"). Raises AudioMuxError, leaving `video` as it was."""
    partial = video.with_name(f".{video.stem}.audio-part{video.suffix}")
    try:
        try:
            how = _mux(video, audio_source, partial, copy=True)
        except (av.FFmpegError, ValueError):
            # The container refused the codec as is (e.g. PCM audio into .mp4).
            how = _mux(video, audio_source, partial, copy=False)
        os.replace(partial, video)
    except (av.FFmpegError, ValueError, OSError) as exc:
        raise AudioMuxError(f"{video}: the target's audio could not be kept ({exc})") from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return how


def _mux(video: Path, audio_source: Path, out_path: Path, *, copy: bool) -> str:
    with (
        av.open(str(video)) as pictures,
        av.open(str(audio_source)) as sound,
        av.open(str(out_path), "w", format=_format_for(video)) as out,
    ):
        in_video = pictures.streams.video[0]
        in_audio = sound.streams.audio[0]
        out_video = out.add_stream_from_template(in_video)
        if copy:
            out_audio = out.add_stream_from_template(in_audio)
            how = f"copied {in_audio.codec_context.name}"
        else:
            out_audio = out.add_stream("aac", rate=in_audio.codec_context.sample_rate)
            how = "encoded to aac"
        video_end = _duration_s(in_video)
        streams = (
            _timed(pictures.demux(in_video), out_video),
            _audio(sound, in_audio, out_audio, copy, video_end),
        )
        for _, packet in heapq.merge(*streams, key=lambda item: item[0]):
            out.mux(packet)
        if not copy:
            out.mux(out_audio.encode(None))  # flush the encoder
    return how


def _format_for(path: Path) -> str | None:
    """The container by extension; None lets FFmpeg guess from the name."""
    return {".mp4": "mp4", ".m4v": "mp4", ".mov": "mov", ".mkv": "matroska"}.get(
        path.suffix.lower()
    )


def _duration_s(stream: Any) -> float | None:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    return None


def _timed(packets: Iterator[Any], out_stream: Any) -> Iterator[tuple[float, Any]]:
    for packet in packets:
        if packet.dts is None:  # the demuxer's end-of-stream marker
            continue
        packet.stream = out_stream
        yield float(packet.dts * packet.time_base), packet


def _audio(
    container: Any, in_audio: Any, out_audio: Any, copy: bool, end_s: float | None
) -> Iterator[tuple[float, Any]]:
    """The audio, no longer than the video (a swap that stopped early keeps sync)."""
    if copy:
        for at, packet in _timed(container.demux(in_audio), out_audio):
            if end_s is not None and at > end_s:
                return
            yield at, packet
        return
    for frame in container.decode(in_audio):
        at = float(frame.pts * frame.time_base) if frame.pts is not None else 0.0
        if end_s is not None and at > end_s:
            return
        frame.pts = None  # the encoder numbers its own samples
        for packet in out_audio.encode(frame):
            yield float(packet.pts * Fraction(1, out_audio.rate)), packet
