"""Keeping a video's sound: real files written and read with PyAV (FFmpeg's libraries)."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from engine.outputs.audio_mux import AudioMuxError, add_audio, has_audio
from engine.sources.video_timing import read_timing

RATE = 48000
TONE_HZ = 440.0


def make_clip(path: Path, seconds: float = 1.0, fps: int = 10, tone: bool = True) -> Path:
    """A small video (grey frames) with, optionally, a 440 Hz tone as AAC."""
    with av.open(str(path), "w") as out:
        video = out.add_stream("mpeg4", rate=fps)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        audio = out.add_stream("aac", rate=RATE) if tone else None
        for i in range(int(seconds * fps)):
            grey = np.full((48, 64, 3), (i * 20) % 256, np.uint8)
            frame = av.VideoFrame.from_ndarray(grey, "rgb24")
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        if audio is not None:
            t = np.arange(int(seconds * RATE)) / RATE
            samples = (0.5 * np.sin(2 * np.pi * TONE_HZ * t)).astype(np.float32)
            for start in range(0, len(samples), 1024):
                chunk = samples[start : start + 1024][None, :]
                frame = av.AudioFrame.from_ndarray(chunk, format="flt", layout="mono")
                frame.sample_rate = RATE
                out.mux(audio.encode(frame))
            out.mux(audio.encode(None))
    return path


def decode_audio(path: Path) -> tuple[np.ndarray, int]:
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        chunks = [f.to_ndarray().reshape(-1, f.samples)[0] for f in container.decode(stream)]
        return np.concatenate(chunks).astype(np.float64), stream.codec_context.sample_rate


def dominant_hz(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[int(np.argmax(spectrum))])


def test_the_tone_is_copied_into_a_silent_video(tmp_path: Path) -> None:
    target = make_clip(tmp_path / "target.mp4")
    video = make_clip(tmp_path / "swapped.mp4", tone=False)
    assert has_audio(target) and not has_audio(video)
    kept = add_audio(video, target)
    assert kept.how == "copied aac" and kept.timing() == ""
    samples, rate = decode_audio(video)
    assert abs(dominant_hz(samples, rate) - TONE_HZ) < 5
    assert len(samples) / rate == pytest.approx(1.0, abs=0.1)
    with av.open(str(video)) as container:  # the pictures are still all there
        assert sum(1 for _ in container.decode(video=0)) == 10
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_failure_leaves_the_video_untouched(tmp_path: Path) -> None:
    video = make_clip(tmp_path / "swapped.mp4", tone=False)
    before = video.read_bytes()
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video")
    with pytest.raises(AudioMuxError, match="audio could not be kept"):
        add_audio(video, broken)
    assert video.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.mp4", "swapped.mp4"]


@pytest.mark.testdata
def test_a_phone_clip_whose_sound_starts_first_is_moved_with_its_picture(
    tmp_path: Path, testdata_dir: Path
) -> None:
    """lin_manuel_miranda_1.mp4: picture from 0.852 s, sound from 0.008 s on its clock."""
    target = testdata_dir / "video" / "lin_manuel_miranda_1.mp4"
    timing = read_timing(target, 30.0)
    assert timing is not None and timing.start_s == pytest.approx(0.852, abs=1e-3)
    assert not timing.variable and set(timing.repeats().tolist()) == {1}
    swapped = make_clip(tmp_path / "swapped.mp4", seconds=9.2, fps=30, tone=False)
    kept = add_audio(swapped, target, timing.start_s)
    assert kept.cut_before_s == pytest.approx(0.844, abs=1e-3)
    with av.open(str(swapped)) as container:
        audio = container.streams.audio[0]
        start = float(audio.start_time * audio.time_base)
        end = start + float(audio.duration * audio.time_base)
    frame_s = 1 / 30
    assert start == pytest.approx(0.0, abs=frame_s)
    assert end == pytest.approx(10.008 - 0.852, abs=frame_s)  # the sound's end, moved too


def test_audio_that_must_be_encoded_is_moved_and_cut_the_same_way(tmp_path: Path) -> None:
    """PCM (which .mp4 does not take) in a Matroska target, sound from 0 and picture from
    0.5 s on its clock: encoded to AAC, the first 0.5 s left out, cut at the picture's end."""
    target = tmp_path / "target.mkv"
    with av.open(str(target), "w") as out:
        stream = out.add_stream("pcm_s16le", rate=RATE)
        tone = (0.5 * np.sin(2 * np.pi * TONE_HZ * np.arange(3 * RATE) / RATE) * 32767).astype(
            np.int16
        )
        for start in range(0, len(tone), 1024):
            chunk = av.AudioFrame.from_ndarray(tone[None, start : start + 1024], "s16", "mono")
            chunk.sample_rate, chunk.pts = RATE, start
            out.mux(stream.encode(chunk))
        out.mux(stream.encode(None))
    video = make_clip(tmp_path / "swapped.mp4", seconds=1.0, tone=False)
    kept = add_audio(video, target, origin_s=0.5)
    assert kept.how == "encoded to aac"
    assert kept.cut_before_s == pytest.approx(0.5, abs=0.01)
    with av.open(str(video)) as container:
        audio = container.streams.audio[0]
        start = float(audio.start_time * audio.time_base)
        length = float(audio.duration * audio.time_base)
    assert start == pytest.approx(0.0, abs=0.1)
    assert start + length == pytest.approx(1.0, abs=0.1)  # one frame at 10 frame/s
    samples, rate = decode_audio(video)
    assert abs(dominant_hz(samples, rate) - TONE_HZ) < 5
