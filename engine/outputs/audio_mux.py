"""Putting a video's sound back: `fusecam swap` muxes the target's audio track into the
finished video before it is checked and named (engine.tools.offline; PyAV, FFmpeg's
libraries).

The audio packets are copied as they are (no re-encoding, no quality loss) when the output
container takes that codec, else encoded to AAC. Both files are read in step, packets
interleaved by time, so memory stays flat however long the video is. The result replaces
the video file only once it is complete.

Sync: the swapped video starts at 0 with the target's first frame, which the target may
show at any time on its own clock (a phone's video often starts after its sound). The
audio is moved by that same origin, `origin_s`, so each sound plays with the picture it
played with in the target: sound before the first picture or after the last one is left
out (whole packets when copying, at most one packet, ~20 ms, off), sound that starts
later keeps its delay. What was moved or cut is returned for the command to say.
"""

from __future__ import annotations

import contextlib
import heapq
import os
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import av


class AudioMuxError(RuntimeError):
    """The audio could not be added; the video without it is left untouched."""


@dataclass(slots=True)
class KeptAudio:
    """How the audio was kept, and where it sits against the picture."""

    how: str  # "copied aac", "encoded to aac"
    cut_before_s: float = 0.0  # sound before the first picture, left out
    delay_s: float = 0.0  # the sound starts this long after the picture (as in the target)
    cut_after_s: float = 0.0  # sound after the last picture, left out

    def timing(self) -> str:
        """One line for the user: what was done to keep sound and picture in step."""
        parts = []
        if self.cut_before_s >= _SAY_S:
            parts.append(f"its first {self.cut_before_s:.2f} s, before the first picture, left out")
        if self.delay_s >= _SAY_S:
            parts.append(f"it starts {self.delay_s:.2f} s after the picture, as in the target")
        if self.cut_after_s >= _SAY_S:
            parts.append(f"its last {self.cut_after_s:.2f} s, after the last picture, left out")
        return "; ".join(parts)


# Offsets under this are the codec's own framing (an AAC packet is ~21 ms), not news.
_SAY_S = 0.05


def has_audio(path: Path) -> bool:
    try:
        with av.open(str(path)) as container:
            return bool(container.streams.audio)
    except (av.FFmpegError, OSError):
        return False


def add_audio(video: Path, audio_source: Path, origin_s: float = 0.0) -> KeptAudio:
    """Mux `audio_source`'s first audio track into `video` in place, moved so that
    `origin_s` on the source's clock (its first frame's time) falls at the video's start;
    returns how and what was cut. Raises AudioMuxError, leaving `video` as it was."""
    partial = video.with_name(f".{video.stem}.audio-part{video.suffix}")
    try:
        try:
            kept = _mux(video, audio_source, partial, origin_s, copy=True)
        except (av.FFmpegError, ValueError):
            # The container refused the codec as is (e.g. PCM audio into .mp4).
            kept = _mux(video, audio_source, partial, origin_s, copy=False)
        os.replace(partial, video)
    except (av.FFmpegError, ValueError, OSError) as exc:
        raise AudioMuxError(f"{video}: the target's audio could not be kept ({exc})") from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return kept


def _mux(
    video: Path, audio_source: Path, out_path: Path, origin_s: float, *, copy: bool
) -> KeptAudio:
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
            kept = KeptAudio(f"copied {in_audio.codec_context.name}")
        else:
            out_audio = out.add_stream("aac", rate=in_audio.codec_context.sample_rate)
            kept = KeptAudio("encoded to aac")
        window = _Window(origin_s, _duration_s(in_video), kept)
        streams = (
            _timed(pictures.demux(in_video), out_video),
            _copied(sound, in_audio, out_audio, window)
            if copy
            else _encoded(sound, in_audio, out_audio, window),
        )
        for _, packet in heapq.merge(*streams, key=lambda item: item[0]):
            out.mux(packet)
        if not copy:
            out.mux(out_audio.encode(None))  # flush the encoder
        window.finish(_span_s(in_audio))
    return kept


def _format_for(path: Path) -> str | None:
    """The container by extension; None lets FFmpeg guess from the name."""
    return {".mp4": "mp4", ".m4v": "mp4", ".mov": "mov", ".mkv": "matroska"}.get(
        path.suffix.lower()
    )


def _duration_s(stream: Any) -> float | None:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    return None


def _span_s(stream: Any) -> tuple[float, float] | None:
    """(start, end) on the file's clock, as the container states them."""
    length = _duration_s(stream)
    if length is None:
        return None
    start = float((stream.start_time or 0) * stream.time_base)
    return start, start + length


def _timed(packets: Iterator[Any], out_stream: Any) -> Iterator[tuple[float, Any]]:
    for packet in packets:
        if packet.dts is None:  # the demuxer's end-of-stream marker
            continue
        packet.stream = out_stream
        yield float(packet.dts * packet.time_base), packet


class _Window:
    """The part of the sound that has a picture: source times in [origin, origin + end)."""

    def __init__(self, origin_s: float, end_s: float | None, kept: KeptAudio) -> None:
        self.origin_s = origin_s
        self.end_s = end_s
        self.kept = kept
        self.first_s: float | None = None  # the first sound kept, on the output's clock
        self.source_first_s: float | None = None  # the first sound seen, on the source's

    def place(self, source_s: float) -> float | None:
        """Where a piece of sound lands in the output; None when it is left out."""
        if self.source_first_s is None:
            self.source_first_s = source_s
        at = source_s - self.origin_s
        if at < -1e-6:
            return None
        if self.end_s is not None and at >= self.end_s:
            return None
        if self.first_s is None:
            self.first_s = at
        return at

    def finish(self, source: tuple[float, float] | None) -> None:
        """Fill in what was cut, from the source stream's stated (start, end) — its
        start includes the codec's priming, which the container hides — or, where the
        container states none (Matroska), from the first sound seen."""
        self.kept.delay_s = self.first_s or 0.0
        if source is None:
            if self.source_first_s is not None:
                self.kept.cut_before_s = max(0.0, self.origin_s - self.source_first_s)
            return
        source_start_s, source_end_s = source
        self.kept.cut_before_s = max(0.0, self.origin_s - source_start_s)
        if self.end_s is not None:
            self.kept.cut_after_s = max(0.0, source_end_s - self.origin_s - self.end_s)


def _copied(
    container: Any, in_audio: Any, out_audio: Any, window: _Window
) -> Iterator[tuple[float, Any]]:
    """The audio packets as they are, moved by the origin (in their own time base)."""
    for packet in container.demux(in_audio):
        if packet.dts is None or packet.pts is None:  # the demuxer's end-of-stream marker
            continue
        base = packet.time_base
        at = window.place(float(packet.pts * base))
        if at is None:
            if window.first_s is not None:
                return  # left out after some was kept: past the video's end
            continue
        shift = packet.pts - round(at / base)
        packet.pts -= shift
        packet.dts -= shift
        packet.stream = out_audio
        yield float(packet.dts * base), packet


def _encoded(
    container: Any, in_audio: Any, out_audio: Any, window: _Window
) -> Iterator[tuple[float, Any]]:
    """The audio decoded and encoded to AAC, each frame stamped with its output time."""
    rate = out_audio.rate
    for frame in container.decode(in_audio):
        if frame.pts is None:
            continue
        at = window.place(float(frame.pts * frame.time_base))
        if at is None:
            if window.first_s is not None:
                return
            continue
        frame.pts = round(at * rate)
        frame.time_base = Fraction(1, rate)
        for packet in out_audio.encode(frame):
            yield float(packet.pts * Fraction(1, rate)), packet
