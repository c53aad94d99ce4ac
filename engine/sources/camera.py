"""Live camera source (index or device path) that survives a lost camera."""

from __future__ import annotations

import logging
import sys
import time

import cv2

from engine.core.types import Frame
from engine.sources.base import FrameSource, SourceError, SourceInfo

log = logging.getLogger(__name__)

# After this many failed reads in a row the camera counts as lost and is reopened.
_LOST_AFTER_FAILED_READS = 15
_REOPEN_EVERY_S = 1.0


def _backend() -> int:
    if sys.platform.startswith("win"):
        return int(cv2.CAP_DSHOW)
    if sys.platform == "darwin":
        return int(cv2.CAP_AVFOUNDATION)
    return int(cv2.CAP_V4L2) if sys.platform.startswith("linux") else int(cv2.CAP_ANY)


class CameraSource(FrameSource):
    """Requested width/height/fps are hints; `info` reports what the camera delivers."""

    kind = "camera"

    def __init__(
        self,
        device: int | str = 0,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(str(device), realtime=False, **kwargs)  # type: ignore[arg-type]
        self.device = device
        self.requested = (width, height, fps)
        self._cap: cv2.VideoCapture | None = None
        self.lost = False

    def _connect(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(self.device, _backend())
        if not cap.isOpened():
            cap.release()
            raise SourceError(
                f"camera {self.device!r}: cannot open (not connected, or busy in another app)"
            )
        width, height, fps = self.requested
        if width:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if fps:
            cap.set(cv2.CAP_PROP_FPS, fps)
        return cap

    def _open(self) -> SourceInfo:
        cap = self._connect()
        ok, frame = cap.read()
        if not ok or frame is None:
            cap.release()
            raise SourceError(f"camera {self.device!r}: opened but delivers no frames")
        self._cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS)
        return SourceInfo(
            self.kind,
            f"camera {self.device}",
            frame.shape[1],
            frame.shape[0],
            fps if 0 < fps < 1000 else 30.0,
        )

    def _read(self) -> Frame | None:
        failures = 0
        while not self.stopping:
            if self._cap is not None:
                ok, frame = self._cap.read()
                if ok and frame is not None:
                    if self.lost:
                        log.info("camera %r is back", self.device)
                        self.lost = False
                    return frame
                failures += 1
                if failures < _LOST_AFTER_FAILED_READS:
                    continue
                self._cap.release()
                self._cap = None
            if not self.lost:
                self.lost = True
                message = f"camera {self.device!r} lost; retrying every {_REOPEN_EVERY_S:.0f} s"
                log.warning(message)
                if self.on_error is not None:
                    self.on_error(self.name, SourceError(message))
            if self.wait(_REOPEN_EVERY_S):
                return None
            try:
                self._cap = self._connect()
                failures = 0
            except SourceError:
                self._cap = None
        return None

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    @staticmethod
    def enumerate(max_index: int = 8) -> list[int]:
        """Indices of cameras that open (probing is slow on some OSes: call off the GUI thread)."""
        found = []
        for index in range(max_index):
            cap = cv2.VideoCapture(index, _backend())
            if cap.isOpened():
                found.append(index)
            cap.release()
            time.sleep(0)
        return found
