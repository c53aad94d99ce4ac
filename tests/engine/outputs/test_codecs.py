"""H.264 where the installed PyAV can encode it, MPEG-4 Part 2 otherwise, and the files
say which: real encoders, real files, read back with PyAV."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np

from engine.outputs import codecs
from engine.outputs.video_file import VideoOutput


def _frames(count: int) -> list[np.ndarray]:
    ramp = np.linspace(0, 255, 160, dtype=np.uint8)
    return [np.dstack([np.roll(ramp, i)[None, :].repeat(96, 0)] * 3) for i in range(count)]


def test_an_mp4_is_h264_where_an_encoder_works_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "clip.mp4"
    with VideoOutput(out, (160, 96), 30.0) as video:
        for frame in _frames(20):
            video.write(frame)
        assert video.commit() == 20
        used = video.writer.encoder
    with av.open(str(out)) as container:
        written = container.streams.video[0].codec_context.name
    if codecs.h264_encoder() is not None:
        assert written == "h264" and used.is_h264
        assert used.describe() == f"H.264 with {codecs.h264_encoder()}"
    else:
        assert written == "mpeg4" and not used.is_h264
        assert "no working H.264 encoder" in used.describe()


def test_a_recording_encodes_with_the_live_settings(tmp_path: Path) -> None:
    out = tmp_path / "rec.mp4"
    with VideoOutput(out, (160, 96), 30.0, crash_safe=True) as video:
        for frame in _frames(15):
            video.write(frame)
        video.commit()
        used = video.writer.encoder
    if used.codec == "libx264":
        assert used.options["tune"] == "zerolatency"  # no lookahead: frames leave at once


def test_an_encoder_that_cannot_open_is_not_chosen() -> None:
    assert not codecs._opens("fusecam-no-such-encoder")
    assert codecs._opens("mpeg4")  # FFmpeg's own: the fallback every build has
    fallback = codecs.Encoder("mpeg4")
    assert not fallback.is_h264 and fallback.describe().startswith("MPEG-4 Part 2")
