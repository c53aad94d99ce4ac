"""The virtual camera sink, against a fake pyvirtualcam backend.

The real drivers (v4l2loopback, OBS Virtual Camera, Unity Capture) cannot run here, so a
backend registered with `pyvirtualcam.register_backend` records what pyvirtualcam hands
it — the same path a real driver sees. The missing-driver test uses the real Linux
backend where no loopback device exists.
"""

from __future__ import annotations

import glob
import platform
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import pytest
import pyvirtualcam
from pyvirtualcam.camera import BACKENDS
from pyvirtualcam.util import decode_fourcc

from engine.core.packet import FramePacket
from engine.outputs.virtualcam import VirtualCamConfig, VirtualCamError, VirtualCamSink
from engine.outputs.virtualcam_help import driver_help, normalize_device
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from tests.engine.stages.passthrough import PassThrough

SIZE = (320, 240)


@dataclass
class FakeDriver:
    """What the fake backend saw; knobs to refuse formats, stall or fail."""

    formats: set[str] = field(default_factory=lambda: {"24BG", "raw "})
    fail_open: str | None = None
    fail_on_frame: int | None = None
    gate: threading.Event = field(default_factory=threading.Event)
    opened: list[dict[str, Any]] = field(default_factory=list)
    frames: list[np.ndarray] = field(default_factory=list)
    closed: int = 0
    entered_send: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.gate.set()


@pytest.fixture
def fake() -> Iterator[tuple[str, FakeDriver]]:
    driver = FakeDriver()

    class FakeBackend:
        def __init__(
            self, *, width: int, height: int, fps: float, fourcc: int, device: str | None, **kw: Any
        ) -> None:
            if driver.fail_open is not None:
                raise RuntimeError(driver.fail_open)
            fmt = decode_fourcc(fourcc)
            if fmt not in driver.formats:
                raise RuntimeError(f"unsupported pixel format {fmt!r}")
            self.shape = (height, width, 3)
            self._device = device or "/dev/fake0"
            driver.opened.append(
                {"width": width, "height": height, "fps": fps, "fmt": fmt, "device": self._device}
            )

        def send(self, frame: np.ndarray) -> None:
            driver.entered_send.set()
            driver.gate.wait()
            if driver.fail_on_frame is not None and len(driver.frames) == driver.fail_on_frame:
                raise OSError("device unplugged")
            assert frame.ndim == 1 and frame.flags.c_contiguous
            driver.frames.append(frame.reshape(self.shape).copy())

        def close(self) -> None:
            driver.closed += 1

        def device(self) -> str:
            return self._device

        def native_fourcc(self) -> int | None:
            return None

    name = f"fusecam-test-{id(driver)}"
    pyvirtualcam.register_backend(name, FakeBackend)
    try:
        yield name, driver
    finally:
        BACKENDS.pop(name, None)


@pytest.fixture
def live() -> Iterator[LiveSession]:
    session = LiveSession(Engine([PassThrough()]), DemoSource(size=SIZE))
    yield session
    session.stop()


def _published(engine: Engine) -> dict[bytes, int]:
    """Frame bytes → frame_id of everything the engine publishes from now on."""
    seen: dict[bytes, int] = {}

    def note(packet: FramePacket) -> None:
        seen[packet.result.tobytes()] = packet.frame_id

    engine.add_listener(note)
    return seen


def _wait(condition: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_frames_arrive_in_order_as_bgr_at_input_size(
    live: LiveSession, fake: tuple[str, FakeDriver]
) -> None:
    name, driver = fake
    published = _published(live.engine)
    sink = VirtualCamSink(live.engine, VirtualCamConfig(backend=name, device="fake7"), SIZE, 30.0)
    info = sink.open()
    assert (info.backend, info.device, info.width, info.height) == (name, "fake7", *SIZE)
    assert info.fps == 30.0 and info.pixel_format == "BGR"
    assert driver.opened == [
        {"width": 320, "height": 240, "fps": 30.0, "fmt": "24BG", "device": "fake7"}
    ]
    sink.start()
    live.start()
    assert _wait(lambda: len(driver.frames) >= 20)
    live.stop()
    sink.stop()
    found = [published.get(frame.tobytes()) for frame in driver.frames]
    # Every frame sent is exactly one the engine published (BGR, no conversion) ...
    ids = [i for i in found if i is not None]
    assert len(ids) == len(found)
    # ... in publishing order.
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(frame.shape == (240, 320, 3) for frame in driver.frames)
    assert sink.resized == 0
    assert driver.closed == 1


def test_other_output_size_is_resized(live: LiveSession, fake: tuple[str, FakeDriver]) -> None:
    name, driver = fake
    frames: dict[bytes, np.ndarray] = {}

    def note(packet: FramePacket) -> None:
        small = cv2.resize(packet.result, (160, 120), interpolation=cv2.INTER_AREA)
        frames[small.tobytes()] = small

    live.engine.add_listener(note)
    sink = VirtualCamSink(live.engine, VirtualCamConfig(size=(160, 120), backend=name), SIZE, 30.0)
    sink.start()
    live.start()
    assert _wait(lambda: len(driver.frames) >= 5)
    live.stop()
    sink.stop()
    assert driver.opened[0]["width"] == 160 and driver.opened[0]["height"] == 120
    assert all(frame.tobytes() in frames for frame in driver.frames)
    assert sink.resized == sink.frames


def test_backend_without_bgr_gets_rgb(live: LiveSession, fake: tuple[str, FakeDriver]) -> None:
    name, driver = fake
    driver.formats = {"raw "}  # RGB only
    published: dict[bytes, int] = {}
    live.engine.add_listener(
        lambda p: published.__setitem__(
            cv2.cvtColor(p.result, cv2.COLOR_BGR2RGB).tobytes(), p.frame_id
        )
    )
    sink = VirtualCamSink(live.engine, VirtualCamConfig(backend=name), SIZE, 30.0)
    assert sink.open().pixel_format == "RGB"
    sink.start()
    live.start()
    assert _wait(lambda: len(driver.frames) >= 5)
    live.stop()
    sink.stop()
    assert all(frame.tobytes() in published for frame in driver.frames)


def test_stalled_consumer_does_not_stall_engine(
    live: LiveSession, fake: tuple[str, FakeDriver]
) -> None:
    name, driver = fake
    driver.gate.clear()  # the driver blocks inside send()
    sink = VirtualCamSink(live.engine, VirtualCamConfig(backend=name), SIZE, 30.0)
    sink.start()
    live.start()
    assert driver.entered_send.wait(10)
    stalled_at = live.engine.frames_published
    # The engine goes on publishing while the camera thread is stuck.
    assert live.wait_frames(stalled_at + 20, timeout=15)
    assert driver.frames == []
    driver.gate.set()
    assert _wait(lambda: len(driver.frames) >= 3)
    live.stop()
    sink.stop()
    # The frames published during the stall were skipped, not queued.
    assert sink.skipped >= 15
    assert sink.frames < live.engine.frames_published - 15


def test_camera_rate_caps_sending(live: LiveSession, fake: tuple[str, FakeDriver]) -> None:
    name, driver = fake
    sink = VirtualCamSink(live.engine, VirtualCamConfig(fps=10, backend=name), SIZE, 30.0)
    sink.start()
    live.start()
    assert _wait(lambda: len(driver.frames) >= 6)
    live.stop()
    sink.stop()
    assert driver.opened[0]["fps"] == 10
    # 30 fps in, 10 fps out: frames between sends are skipped (newest wins).
    assert sink.skipped > 0


def test_driver_failure_releases_camera_and_reports(
    live: LiveSession, fake: tuple[str, FakeDriver]
) -> None:
    name, driver = fake
    driver.fail_on_frame = 3
    errors: list[tuple[str, BaseException]] = []
    sink = VirtualCamSink(
        live.engine,
        VirtualCamConfig(backend=name),
        SIZE,
        30.0,
        on_error=lambda where, exc: errors.append((where, exc)),
    )
    sink.start()
    live.start()
    assert _wait(lambda: not sink.alive)
    assert driver.closed == 1  # released as the thread ended
    assert [where for where, _ in errors] == ["sink-virtualcam"]
    assert "device unplugged" in str(errors[0][1])
    # The engine never noticed.
    published = live.engine.frames_published
    assert live.wait_frames(published + 5, timeout=10)
    sink.stop()
    assert driver.closed == 1


def test_opened_but_never_started_is_released(fake: tuple[str, FakeDriver]) -> None:
    name, driver = fake
    sink = VirtualCamSink(Engine([PassThrough()]), VirtualCamConfig(backend=name), SIZE, 30.0)
    sink.open()
    assert sink.stop()
    assert driver.closed == 1


def test_missing_driver_names_the_setup_steps(fake: tuple[str, FakeDriver]) -> None:
    name, driver = fake
    driver.fail_open = "OBS Virtual Camera device not found"
    sink = VirtualCamSink(Engine([PassThrough()]), VirtualCamConfig(backend=name), SIZE, 30.0)
    with pytest.raises(VirtualCamError) as caught:
        sink.open()
    message = str(caught.value)
    assert "OBS Virtual Camera device not found" in message
    assert driver_help() in message


@pytest.mark.skipif(platform.system() != "Linux", reason="the v4l2loopback backend is Linux's")
def test_missing_v4l2loopback_real_backend() -> None:
    if glob.glob("/dev/video*"):
        pytest.skip("video devices exist here; the no-driver case cannot be shown")
    sink = VirtualCamSink(Engine([PassThrough()]), VirtualCamConfig(), SIZE, 30.0)
    with pytest.raises(VirtualCamError) as caught:
        sink.open()
    message = str(caught.value)
    assert "No v4l2 loopback device found" in message  # pyvirtualcam's own reason
    assert "sudo apt install v4l2loopback-dkms" in message
    assert (
        'sudo modprobe v4l2loopback devices=1 video_nr=10 card_label="Fusecam" '
        "exclusive_caps=1" in message
    )


def test_unknown_backend_lists_the_available_ones() -> None:
    sink = VirtualCamSink(Engine([PassThrough()]), VirtualCamConfig(backend="nope"), SIZE, 30.0)
    with pytest.raises(VirtualCamError, match=r"'nope' does not exist.*available"):
        sink.open()


def test_help_for_each_os() -> None:
    assert "exclusive_caps=1" in driver_help("Linux")
    windows = driver_help("Windows")
    assert "OBS Studio 26" in windows and "Unity Capture" in windows
    assert "Start Virtual Camera" in windows
    mac = driver_help("Darwin")
    assert "OBS Studio 30" in mac and "Camera Extensions" in mac
    assert "--stream" in driver_help("Plan9")


def test_device_names() -> None:
    assert normalize_device("10", "Linux") == "/dev/video10"
    assert normalize_device("/dev/video3", "Linux") == "/dev/video3"
    assert normalize_device("Unity Video Capture", "Windows") == "Unity Video Capture"
    assert normalize_device("", "Linux") is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"size": (8, 8)}, "size"), ({"fps": 0.5}, "fps"), ({"fps": 500.0}, "fps")],
)
def test_config_is_validated(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        VirtualCamConfig(**kwargs)
