"""Offline processing (`fusecam swap`): one image or a whole video through the live stages.

The output appears under its name only complete: written under a temporary name, the
target's audio muxed in, checked and renamed (engine.core.atomic,
engine.outputs.video_file). A stage that fails on a frame fails the whole swap — live,
that frame would pass through unswapped; offline, an output with unswapped frames is
not the result that was asked for.

Every frame written carries the invisible watermark and, unless `label` is off, the
visible "SYNTHETIC" label (engine.outputs.stamp), as the live outputs do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.core.imageio import IMAGE_SUFFIXES, read_picture, write_image
from engine.core.packet import FramePacket
from engine.core.picture import like_target
from engine.core.types import Frame
from engine.outputs.audio_mux import AudioMuxError, KeptAudio, add_audio, has_audio
from engine.outputs.stamp import Stamp
from engine.outputs.video_file import VideoOutput
from engine.runtime.pipeline import Engine
from engine.sources.base import SourceError
from engine.sources.video import VideoFileSource
from engine.sources.video_timing import VideoTiming, read_timing

Progress = Callable[[int, int | None], None]


class SwapFailed(RuntimeError):
    """A stage raised on a frame; nothing was written."""


@dataclass(frozen=True, slots=True)
class SwapReport:
    """What a swap wrote, and what the user should hear about it."""

    frames: int
    without_face: int  # frames where no face was found (copied unchanged)
    not_swapped: int  # frames with faces of which none could be swapped
    expected: int | None = None  # frames the video's header announced
    audio: str = ""  # how the target's audio was kept ("copied aac"); "" none
    audio_error: str | None = None  # why it could not be (the video has none)
    written: int | None = None  # frames in the output, when not `frames` (variable rate)
    # What was done to the output that the user did not ask for: a rotation applied,
    # alpha or depth the format cannot hold, sound moved to stay in step.
    notes: tuple[str, ...] = ()
    video_codec: str = ""  # what encoded a video output, e.g. "H.264 (libx264)"

    def warnings(self) -> list[str]:
        lines = []
        # Frame counts in headers are estimates: only a clear shortfall is worth a word.
        if self.expected is not None and self.frames < self.expected - 2:
            lines.append(
                f"the target ended after {self.frames} of the {self.expected} frames its "
                "header announces (cut short or damaged?)"
            )
        if self.without_face == self.frames:
            where = "the target" if self.frames == 1 else f"any of the {self.frames} frames"
            lines.append(f"no face found in {where}; the output is the target unchanged")
        elif self.without_face:
            lines.append(f"no face found in {self.without_face} of {self.frames} frames")
        if self.not_swapped:
            lines.append(f"faces found but none swapped in {self.not_swapped} frame(s)")
        if self.audio_error is not None:
            lines.append(self.audio_error)
        return lines


def is_image(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


class _Tally:
    """Runs frames through the engine and keeps count of faces; raises on a stage error.
    `output` is the frame to write: the result, marked and labelled."""

    def __init__(self, engine: Engine, label: bool, fps: float = 30.0) -> None:
        self.engine = engine
        self.label = label
        # Each frame is stamped with its place in the video, not the wall clock: the
        # landmarks' smoothing (engine/face/one_euro.py) reads the time between frames,
        # and timed by the clock a swap came out as fast or slow as the machine ran it
        # (two runs of one clip differed in every frame after the first, by up to 72
        # grey levels).
        self.frame_ns = 1e9 / fps if fps > 0 else 1e9 / 30.0
        self.stamp = Stamp()
        self.frames = self.without_face = self.not_swapped = 0

    def output(self, frame: Frame) -> Frame:
        return self.stamp.apply(self.process(frame).result, self.label)

    def process(self, frame: Frame) -> FramePacket:
        frame.flags.writeable = False
        at_ns = round(self.frames * self.frame_ns)
        packet = self.engine.process(FramePacket(self.frames, at_ns, frame))
        if packet.error is not None:
            raise SwapFailed(f"frame {self.frames + 1}: stage {packet.error}; nothing was written")
        self.frames += 1
        miss = packet.check.miss if packet.check is not None else None
        if miss == "no_face":
            self.without_face += 1
        elif miss == "not_swapped":
            self.not_swapped += 1
        return packet

    def report(self, expected: int | None = None) -> SwapReport:
        return SwapReport(self.frames, self.without_face, self.not_swapped, expected)


def swap_image(engine: Engine, target: Path, output: Path, *, label: bool = True) -> SwapReport:
    tally = _Tally(engine, label)
    picture = read_picture(target)
    pixels, notes = like_target(picture, tally.output(picture.frame), output.suffix or ".png")
    write_image(output, pixels)
    return dataclasses.replace(tally.report(), notes=tuple(notes))


def swap_video(
    engine: Engine,
    target: Path,
    output: Path,
    progress: Progress | None = None,
    *,
    label: bool = True,
) -> SwapReport:
    """Process every frame in order (no drops) into `output` with the target's audio,
    all or nothing (a failure to keep the audio is reported, not fatal).

    The output runs at a constant rate from the target's first frame; each frame is
    written where the target's own timestamps put it (engine.sources.video_timing), so
    a variable-rate frame is repeated or, shown for less than half a frame, left out,
    and the audio is moved by the same origin (engine.outputs.audio_mux)."""
    source = VideoFileSource(target, realtime=False)
    info = source.open()
    timing = read_timing(target, info.fps)
    repeats = timing.repeats() if timing is not None else None
    fps = float(timing.rate) if timing is not None else info.fps
    tally = _Tally(engine, label, fps)
    audio = _Audio(target, timing.start_s if timing is not None else 0.0)
    with VideoOutput(output, (info.width, info.height), fps) as video:
        for index, frame in enumerate(source.iter_frames()):
            result = tally.output(frame)
            # Frames beyond the timestamps read (a file PyAV and OpenCV count apart) go once.
            for _ in range(
                int(repeats[index]) if repeats is not None and index < len(repeats) else 1
            ):
                video.write(result)
            if progress is not None:
                progress(tally.frames, info.frame_count)
        if tally.frames == 0:
            raise SourceError(f"{target}: no frames could be read")
        written = video.commit(finish=audio.add)
    return dataclasses.replace(
        tally.report(info.frame_count),
        audio=audio.kept.how if audio.kept else "",
        audio_error=audio.error,
        written=written if written != tally.frames else None,
        notes=_timing_notes(timing, audio.kept),
        video_codec=video.writer.encoder.describe(),
    )


def _timing_notes(timing: VideoTiming | None, kept: KeptAudio | None) -> tuple[str, ...]:
    notes = []
    if timing is not None and timing.variable:
        notes.append(
            f"variable frame rate: frames placed by their timestamps at {float(timing.rate):.3f} "
            "frame/s (repeated or left out where needed)"
        )
    if kept is not None and (line := kept.timing()):
        notes.append(f"sound kept in step with the picture: {line}")
    return tuple(notes)


class _Audio:
    """The target's sound, muxed into the finished video before it is checked and named;
    `origin_s` is the target's first frame's time, where the output starts."""

    def __init__(self, target: Path, origin_s: float) -> None:
        self.target = target
        self.origin_s = origin_s
        self.kept: KeptAudio | None = None
        self.error: str | None = None

    def add(self, video: Path) -> None:
        if not has_audio(self.target):
            return
        try:
            self.kept = add_audio(video, self.target, self.origin_s)
        except AudioMuxError as exc:  # the video stays as it is, without sound
            self.error = f"the target's audio could not be kept ({exc.__cause__ or exc})"
