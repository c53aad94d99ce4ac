"""`fusecam swap` keeps sound and picture in step whatever the target's streams' start
times and frame rate: clips built here with PyAV whose audio starts before, after and with
the video (and one with a variable frame rate), swapped by the real command, and the
output's streams read back with PyAV to within one frame."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from tests.app.cli.test_cli import run_fusecam
from tests.app.cli.test_swap_audio import swap_args

RATE = 48000
FPS = 10
FRAME_S = 1 / FPS
_MS = Fraction(1, 1000)


def grey_level(index: int) -> int:
    return 20 + (index * 23) % 200


def make_timed_clip(
    path: Path, frame_times_s: list[float], audio_start_s: float, audio_s: float
) -> Path:
    """Grey frames (frame i's level: grey_level(i)) shown at `frame_times_s`, and a tone
    from `audio_start_s` for `audio_s`, each stream on its own clock as phones write them."""
    with av.open(str(path), "w") as out:
        video = out.add_stream("libx264", rate=1000)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        video.time_base = _MS
        audio = out.add_stream("aac", rate=RATE)
        for i, at in enumerate(frame_times_s):
            picture = np.full((48, 64, 3), grey_level(i), np.uint8)
            frame = av.VideoFrame.from_ndarray(picture, "rgb24")
            frame.pts, frame.time_base = round(at * 1000), _MS
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        samples = (0.5 * np.sin(2 * np.pi * 440 * np.arange(int(audio_s * RATE)) / RATE)).astype(
            np.float32
        )
        for start in range(0, len(samples), 1024):
            chunk = av.AudioFrame.from_ndarray(
                samples[None, start : start + 1024], format="flt", layout="mono"
            )
            chunk.sample_rate = RATE
            chunk.pts, chunk.time_base = round(audio_start_s * RATE) + start, Fraction(1, RATE)
            out.mux(audio.encode(chunk))
        out.mux(audio.encode(None))
    return path


def stream_spans(path: Path) -> dict[str, tuple[float, float]]:
    """(start, end) in seconds of each stream, from the packets' own timestamps."""
    spans: dict[str, tuple[float, float]] = {}
    with av.open(str(path)) as container:
        for packet in container.demux():
            if packet.pts is None or not packet.size:
                continue
            start = float(packet.pts * packet.time_base)
            end = start + float(packet.duration * packet.time_base)
            kind = packet.stream.type
            lo, hi = spans.get(kind, (start, end))
            spans[kind] = (min(lo, start), max(hi, end))
    return spans


def swap(tmp_path: Path, target: Path) -> tuple[Path, str]:
    output = tmp_path / "out.mp4"
    # No visible label: the frames are told apart by their grey level, which the badge in
    # the corner would shift (the invisible watermark leaves flat frames as they are).
    done = run_fusecam([*swap_args(target, output), "--no-label"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return output, done.stderr


@pytest.mark.parametrize(
    ("video_start_s", "audio_start_s", "said"),  # 2 s of picture, 2.5 s of sound
    [
        (0.8, 0.0, "its first 0.80 s, before the first picture, left out"),
        (0.0, 0.6, "s after the picture, as in the target"),
        (0.0, 0.0, "its last 0.50 s, after the last picture, left out"),
    ],
    ids=["audio-first", "video-first", "together"],
)
def test_sound_stays_with_the_picture_whatever_starts_first(
    tmp_path: Path, video_start_s: float, audio_start_s: float, said: str
) -> None:
    frames = [video_start_s + i * FRAME_S for i in range(20)]  # 2 s of picture
    target = make_timed_clip(tmp_path / "target.mp4", frames, audio_start_s, audio_s=2.5)
    output, log = swap(tmp_path, target)
    spans = stream_spans(output)
    video_start, video_end = spans["video"]
    audio_start, audio_end = spans["audio"]
    # The picture starts at 0 with the target's first frame, every frame kept.
    assert video_start == pytest.approx(0.0, abs=1e-3)
    assert video_end == pytest.approx(2.0, abs=FRAME_S)
    # The sound sits where it sat against the picture in the target, cut to the picture.
    assert audio_start == pytest.approx(max(0.0, audio_start_s - video_start_s), abs=FRAME_S)
    expected_end = min(2.0, audio_start_s + 2.5 - video_start_s)
    assert audio_end == pytest.approx(expected_end, abs=FRAME_S)
    assert "wrote 20 frames" in log
    assert "sound kept in step with the picture: " in log and said in log


def decoded_levels(path: Path) -> list[tuple[float, float]]:
    with av.open(str(path)) as container:
        return [
            (float(frame.time), float(frame.to_ndarray(format="gray").mean()))
            for frame in container.decode(video=0)
        ]


def test_a_variable_frame_rate_target_keeps_each_frame_at_its_time(tmp_path: Path) -> None:
    # 10 frame/s with two slow stretches (a phone in low light): gaps of 0.3 s and 0.2 s.
    gaps = [0.1] * 5 + [0.3] + [0.1] * 5 + [0.2] + [0.1] * 5
    frames = np.concatenate([[0.0], np.cumsum(gaps)]).round(3).tolist()
    target = make_timed_clip(tmp_path / "vfr.mp4", frames, audio_start_s=0.0, audio_s=3.0)
    output, log = swap(tmp_path, target)
    assert "variable frame rate" in log
    shown = decoded_levels(output)
    # A constant 10 frame/s from the first frame to the last: slow frames repeated.
    assert len(shown) == round(frames[-1] * FPS) + 1
    for at, level in shown:
        # The target's frame on screen at that moment (the last one shown by then).
        index = int(np.searchsorted(frames, at + 1e-3, side="right")) - 1
        assert abs(level - grey_level(index)) < 6, (at, level, index)
    audio_start, audio_end = stream_spans(output)["audio"]
    assert audio_start == pytest.approx(0.0, abs=FRAME_S)
    assert audio_end == pytest.approx(len(shown) * FRAME_S, abs=FRAME_S)
