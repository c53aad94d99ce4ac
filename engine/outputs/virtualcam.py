"""Sends the output to a virtual camera (v4l2loopback, OBS Virtual Camera, Unity Capture).

The camera is opened by `open()` on the caller's thread, so a missing driver fails at
once with the exact setup steps for this OS; frames are then sent from the sink's own
thread, newest first, so a slow driver or consumer never stalls the engine.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import pyvirtualcam
from pyvirtualcam.camera import BACKENDS

from engine.core.packet import FramePacket
from engine.core.threads import ErrorCallback
from engine.core.types import Frame
from engine.outputs.base import FrameFeed, LatestSink
from engine.outputs.virtualcam_help import driver_help, normalize_device

DEFAULT_FPS = 30.0


class VirtualCamError(RuntimeError):
    """No virtual camera could be opened; the message says why and how to set one up."""


@dataclass(frozen=True, slots=True)
class VirtualCamConfig:
    size: tuple[int, int] | None = None  # None: the input's size
    fps: float | None = None  # None: the input's rate
    device: str | None = None  # None: the first free device of the first working backend
    backend: str | None = None  # None: every backend pyvirtualcam has for this OS

    def __post_init__(self) -> None:
        if self.size is not None and not (
            16 <= self.size[0] <= 8192 and 16 <= self.size[1] <= 8192
        ):
            raise ValueError(f"virtual camera size {self.size} is out of range (16..8192)")
        if self.fps is not None and not 1.0 <= self.fps <= 240.0:
            raise ValueError(f"virtual camera fps {self.fps} is out of range (1..240)")


@dataclass(frozen=True, slots=True)
class VirtualCamInfo:
    backend: str
    device: str
    width: int
    height: int
    fps: float
    pixel_format: str  # what Fusecam hands the backend: BGR unless the backend refused it

    def describe(self) -> str:
        return (
            f"{self.backend} {self.device} {self.width}x{self.height} @ {self.fps:g} fps "
            f"({self.pixel_format})"
        )


class VirtualCamSink(LatestSink):
    """Newest frame wins; frames are resized only when the camera size differs."""

    def __init__(
        self,
        feed: FrameFeed,
        config: VirtualCamConfig,
        input_size: tuple[int, int],
        input_fps: float,
        on_error: ErrorCallback | None = None,
    ) -> None:
        super().__init__("sink-virtualcam", feed, on_error)
        self.config = config
        self.size = config.size or input_size
        self.fps = config.fps or (input_fps if input_fps > 0 else DEFAULT_FPS)
        self.resized = 0
        self._camera: Any = None  # pyvirtualcam.Camera (untyped)
        self._convert_to_rgb = False
        self._info: VirtualCamInfo | None = None
        self._close_lock = threading.Lock()

    @property
    def info(self) -> VirtualCamInfo | None:
        """Backend, device, size and rate in use; None until `open()` succeeded."""
        return self._info

    def open(self) -> VirtualCamInfo:
        """Open the device on this thread; raises `VirtualCamError` with setup steps."""
        if self._info is not None:
            return self._info
        backend = self.config.backend
        if backend is not None and backend not in BACKENDS:
            known = ", ".join(sorted(BACKENDS)) or "none"
            raise VirtualCamError(
                f"virtual camera backend {backend!r} does not exist on this system "
                f"(available: {known})"
            )
        if not BACKENDS:
            raise VirtualCamError(f"no virtual camera backend available\n{driver_help()}")
        width, height = self.size
        device = normalize_device(self.config.device)
        kwargs: dict[str, Any] = {"device": device, "backend": backend}
        try:
            camera = pyvirtualcam.Camera(
                width, height, self.fps, fmt=pyvirtualcam.PixelFormat.BGR, **kwargs
            )
        except Exception as bgr_error:
            # Every built-in backend takes BGR; a backend that doesn't gets one
            # conversion per frame rather than no camera.
            try:
                camera = pyvirtualcam.Camera(
                    width, height, self.fps, fmt=pyvirtualcam.PixelFormat.RGB, **kwargs
                )
            except Exception:
                where = f"device {device}" if device else "any device"
                raise VirtualCamError(
                    f"cannot open a virtual camera ({where}): {_one_line(bgr_error)}\n"
                    f"{driver_help()}"
                ) from bgr_error
            self._convert_to_rgb = True
        self._camera = camera
        self._info = VirtualCamInfo(
            backend=str(camera.backend),
            device=str(camera.device),
            width=width,
            height=height,
            fps=float(self.fps),
            pixel_format="RGB" if self._convert_to_rgb else "BGR",
        )
        return self._info

    def start(self) -> None:
        self.open()
        super().start()

    def _fit(self, frame: Frame) -> Frame:
        width, height = self.size
        if frame.shape[1] != width or frame.shape[0] != height:
            self.resized += 1
            shrink = frame.shape[1] > width
            frame = cv2.resize(
                frame, (width, height), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
            )
        if self._convert_to_rgb:
            frame = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
        # pyvirtualcam flattens with reshape: only a strided view (a mirror) needs a copy.
        return frame if frame.flags.c_contiguous else np.ascontiguousarray(frame)

    def consume(self, packet: FramePacket) -> None:
        camera = self._camera
        if camera is None:
            return
        camera.send(self._fit(packet.result))
        # Never faster than the rate announced to the driver; the wait is on this
        # thread only, and frames published meanwhile are skipped (newest wins).
        camera.sleep_until_next_frame()

    def close(self) -> None:
        with self._close_lock:
            camera, self._camera = self._camera, None
        if camera is not None:
            camera.close()

    def stop(self, timeout: float = 2.0) -> bool:
        ended = super().stop(timeout)
        if not self.alive:
            # Opened but never started, or already ended: release the device here.
            self.close()
        return ended


def _one_line(exc: BaseException) -> str:
    return (
        " / ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        or type(exc).__name__
    )
