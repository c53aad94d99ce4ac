"""Frame sources: pacing, looping, frame limits, lock-step, the demo, and clear errors."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.slots import LatestSlot
from engine.sources import CameraSource, DemoSource, ImageSource, SourceError, VideoFileSource
from engine.sources.base import FrameSource


def collect(
    source: FrameSource, consumer_delay_s: float = 0.0, timeout_s: float = 20.0
) -> tuple[list[FramePacket], LatestSlot[FramePacket]]:
    """Run `source` in its thread and take packets until it has ended and nothing is left."""
    slot: LatestSlot[FramePacket] = LatestSlot()
    source.bind(slot)
    source.start()
    packets: list[FramePacket] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            packet = slot.get(timeout=0.05)
            if packet is None:
                if source.finished:
                    break
                continue
            packets.append(packet)
            if consumer_delay_s:
                time.sleep(consumer_delay_s)
        else:
            pytest.fail(f"source did not finish within {timeout_s} s")
    finally:
        assert source.stop(5.0), "source thread did not stop"
    assert source.error is None
    return packets, slot


def intervals_ms(packets: list[FramePacket]) -> list[float]:
    stamps = [p.capture_ns for p in packets]
    return [(b - a) / 1e6 for a, b in itertools.pairwise(stamps)]


# --- pacing ---------------------------------------------------------------------------------


def test_video_source_realtime_paces_at_the_file_rate(make_video: Callable[..., Path]) -> None:
    path = make_video(frames=16, fps=30.0)
    source = VideoFileSource(path, realtime=True, lockstep=True)
    info = source.open()
    assert info.fps == pytest.approx(30.0)
    packets, _ = collect(source)
    assert len(packets) == 16
    median = statistics.median(intervals_ms(packets))
    # A pacing behaviour check (1/30 s between frames), not a speed threshold.
    assert 25.0 <= median <= 45.0, f"median interval {median:.1f} ms"


def test_image_source_realtime_paces_at_its_fps(sample_faces: dict[str, Path]) -> None:
    source = ImageSource(
        sample_faces["grace_hopper"], fps=30.0, size=(96, 64), lockstep=True, max_frames=12
    )
    packets, _ = collect(source)
    assert len(packets) == 12
    median = statistics.median(intervals_ms(packets))
    assert 25.0 <= median <= 45.0, f"median interval {median:.1f} ms"
    assert packets[0].frame.shape == (64, 96, 3)


def test_video_source_not_realtime_runs_far_faster(make_video: Callable[..., Path]) -> None:
    path = make_video(frames=16, fps=30.0)
    paced, _ = collect(VideoFileSource(path, realtime=True, lockstep=True))
    flat_out, _ = collect(VideoFileSource(path, realtime=False, lockstep=True))
    assert len(paced) == len(flat_out) == 16
    paced_span = paced[-1].capture_ns - paced[0].capture_ns
    flat_span = flat_out[-1].capture_ns - flat_out[0].capture_ns
    # Ratio within one run: unpaced reading is not held to the file's 30 fps.
    assert flat_span < paced_span / 2, (flat_span / 1e6, paced_span / 1e6)


# --- reading order, loop, limits, lock-step ----------------------------------------------------


def test_video_source_delivers_every_frame_in_order_read_only(
    make_video: Callable[..., Path], video_level: Callable[[int], int]
) -> None:
    path = make_video(frames=8, size=(64, 48))
    source = VideoFileSource(path, realtime=False, lockstep=True)
    info = source.open()
    assert (info.kind, info.name, info.width, info.height) == ("video", path.name, 64, 48)
    assert info.frame_count == 8
    packets, slot = collect(source)
    assert [p.frame_id for p in packets] == list(range(8))
    assert [int(p.frame[0, 0, 0]) for p in packets] == [video_level(i) for i in range(8)]
    assert all(not p.frame.flags.writeable for p in packets)
    assert all(p.frame.shape == (48, 64, 3) and p.frame.dtype == np.uint8 for p in packets)
    assert source.finished and source.frames_read == 8 and slot.drops == 0


def test_video_source_loop_rewinds_to_the_first_frame(
    make_video: Callable[..., Path], video_level: Callable[[int], int]
) -> None:
    path = make_video(frames=5)
    source = VideoFileSource(path, realtime=False, lockstep=True, loop=True, max_frames=12)
    packets, _ = collect(source)
    assert len(packets) == 12
    levels = [int(p.frame[0, 0, 0]) for p in packets]
    assert levels == [video_level(i % 5) for i in range(12)]


def test_video_source_without_loop_ends_at_the_last_frame(make_video: Callable[..., Path]) -> None:
    path = make_video(frames=5)
    packets, _ = collect(VideoFileSource(path, realtime=False, lockstep=True, max_frames=12))
    assert len(packets) == 5


def test_max_frames_stops_the_source(make_video: Callable[..., Path]) -> None:
    path = make_video(frames=10)
    source = VideoFileSource(path, realtime=False, lockstep=True, max_frames=4)
    packets, _ = collect(source)
    assert [p.frame_id for p in packets] == [0, 1, 2, 3]
    assert source.frames_read == 4 and source.finished


def test_on_end_callback_runs_when_the_input_ends(make_video: Callable[..., Path]) -> None:
    source = VideoFileSource(make_video(frames=3), realtime=False, lockstep=True)
    ended: list[bool] = []
    source.on_end = lambda: ended.append(True)
    collect(source)
    assert ended == [True]


def test_lockstep_hands_over_every_frame_to_a_slow_consumer(
    make_video: Callable[..., Path],
) -> None:
    path = make_video(frames=20)
    packets, slot = collect(
        VideoFileSource(path, realtime=False, lockstep=True), consumer_delay_s=0.01
    )
    assert [p.frame_id for p in packets] == list(range(20))
    assert slot.drops == 0


def test_without_lockstep_a_slow_consumer_gets_the_newest_and_drops_are_counted(
    make_video: Callable[..., Path],
) -> None:
    path = make_video(frames=20)
    packets, slot = collect(VideoFileSource(path, realtime=False), consumer_delay_s=0.02)
    assert slot.drops > 0, "capture waited on the consumer"
    assert len(packets) + slot.drops == 20  # every frame was either taken or counted
    ids = [p.frame_id for p in packets]
    assert ids == sorted(ids)
    assert ids[-1] == 19  # newest wins: the last frame is never the one lost


def test_source_resizes_to_the_requested_size(make_video: Callable[..., Path]) -> None:
    path = make_video(frames=3, size=(64, 48))
    source = VideoFileSource(path, realtime=False, lockstep=True, size=(32, 24))
    info = source.open()
    assert (info.width, info.height) == (32, 24)
    packets, _ = collect(source)
    assert all(p.frame.shape == (24, 32, 3) for p in packets)


def test_source_thread_is_named_after_its_kind(make_video: Callable[..., Path]) -> None:
    assert VideoFileSource(make_video(frames=1)).name == "source-video"
    assert DemoSource().name == "source-demo"


# --- demo -------------------------------------------------------------------------------------


def test_demo_source_frames_have_the_requested_size_and_the_head_moves() -> None:
    source = DemoSource(size=(160, 90), realtime=False, lockstep=True, max_frames=31)
    info = source.open()
    assert (info.width, info.height, info.fps) == (160, 90, 30.0)
    packets, _ = collect(source)
    assert len(packets) == 31
    assert all(p.frame.shape == (90, 160, 3) and p.frame.dtype == np.uint8 for p in packets)
    first, later = packets[0].frame.astype(np.int16), packets[30].frame.astype(np.int16)
    # One second apart the portrait has rolled and shifted: many pixels change clearly.
    changed = np.mean(np.abs(first - later).max(axis=2) > 20)
    assert changed > 0.05, f"only {changed:.1%} of pixels changed"
    assert source.pose_at(0) != source.pose_at(30)
    # Not a blank canvas: the portrait is there.
    assert first.std() > 20


# --- errors -----------------------------------------------------------------------------------


def test_missing_video_file_raises_source_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "nope.mp4"
    with pytest.raises(SourceError, match="no such video file") as info:
        VideoFileSource(path).open()
    assert str(path) in str(info.value)


def test_non_video_file_raises_source_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.mp4"
    path.write_text("this is not a video\n")
    with pytest.raises(SourceError, match="not a readable video") as info:
        VideoFileSource(path).open()
    assert str(path) in str(info.value)


def test_unopenable_camera_raises_source_error() -> None:
    with pytest.raises(SourceError, match="cannot open") as info:
        CameraSource("/dev/does-not-exist").open()
    assert "/dev/does-not-exist" in str(info.value)


def test_missing_or_broken_image_raises_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        ImageSource(tmp_path / "missing.png").open()
    broken = tmp_path / "x.jpg"
    broken.write_text("not an image")
    with pytest.raises(SourceError, match="not a readable image"):
        ImageSource(broken).open()


def test_missing_demo_portrait_raises_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="demo portrait"):
        DemoSource(portrait=tmp_path / "missing.png").open()


# --- real footage -----------------------------------------------------------------------------


@pytest.mark.testdata
def test_real_video_opens_and_reads(testdata_dir: Path) -> None:
    path = testdata_dir / "video" / "obama_1.mp4"
    if not path.is_file():
        pytest.skip(f"{path} not present")
    source = VideoFileSource(path, realtime=False, lockstep=True, max_frames=5)
    info = source.open()
    assert info.width > 0 and info.height > 0 and info.fps > 0
    packets, _ = collect(source)
    assert len(packets) == 5
    assert packets[0].frame.shape == (info.height, info.width, 3)
    assert packets[0].frame.std() > 10  # real picture content, not a blank decode


# --- sources that stop delivering, sizes no machine can hold (issue 14) -----------------------


def test_a_looping_video_cut_short_while_it_is_read_ends_with_an_error(tmp_path: Path) -> None:
    """The issue's case: a video truncated while it was read, looped for --frames, spun at
    0 fps and 95 % CPU forever. Rewinding and still reading nothing is now an error."""
    path = tmp_path / "noise.avi"  # noise: megabytes, more than FFmpeg's read buffer holds
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (320, 240))
    rng = np.random.default_rng(0)
    for _ in range(60):
        writer.write(rng.integers(0, 255, (240, 320, 3), np.uint8))
    writer.release()
    errors: list[BaseException] = []
    source = VideoFileSource(
        path, realtime=True, loop=True, on_error=lambda _w, e: errors.append(e)
    )
    slot: LatestSlot[FramePacket] = LatestSlot()
    source.bind(slot)
    source.start()
    try:
        assert slot.get(timeout=10) is not None
        path.write_bytes(b"")  # cut short to nothing under the reader
        deadline = time.monotonic() + 30
        while not source.finished and time.monotonic() < deadline:
            slot.get(timeout=0.05)
        assert source.finished, "the source kept spinning on a file with no frames left"
    finally:
        source.stop()
    assert isinstance(source.error, SourceError) and errors == [source.error]
    assert "stopped delivering frames" in str(source.error)


def test_sizes_over_the_pixel_limit_are_refused_before_anything_is_made() -> None:
    started = time.monotonic()
    with pytest.raises(SourceError, match="67 megapixels"):
        DemoSource(size=(8192, 8192)).open()
    with pytest.raises(SourceError, match="megapixels"):
        DemoSource(size=(100_000, 1000)).open()
    # A demo just under the limit opens at once (the backdrop blur used to take minutes).
    demo = DemoSource(size=(7000, 7000))
    demo.open()
    assert demo.info is not None and (demo.info.width, demo.info.height) == (7000, 7000)
    print(f"7000x7000 demo opened in {time.monotonic() - started:.2f} s")
