"""Common capture loop: stamp each frame, hand it to the slot, pace, loop or end."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import cv2

from engine.core.imagesize import FrameSizeError, check_frame_size
from engine.core.packet import FramePacket
from engine.core.slots import LatestSlot
from engine.core.threads import ErrorCallback, Worker
from engine.core.types import Frame


class SourceError(RuntimeError):
    """A source cannot be opened or read; the message says which and why."""


@dataclass(frozen=True, slots=True)
class SourceInfo:
    kind: str
    name: str
    width: int
    height: int
    fps: float
    frame_count: int | None = None  # None for live or endless sources


def centre_crop_box(width: int, height: int, zoom: float) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of the centred 1/zoom of a width×height image (at least 1 px)."""
    cw, ch = max(1, round(width / zoom)), max(1, round(height / zoom))
    x0, y0 = (width - cw) // 2, (height - ch) // 2
    return x0, y0, x0 + cw, y0 + ch


def zoom_centre(frame: Frame, zoom: float, size: tuple[int, int]) -> Frame:
    """The centre 1/zoom of `frame` (each side), resized to `size` (w, h)."""
    x0, y0, x1, y1 = centre_crop_box(frame.shape[1], frame.shape[0], zoom)
    crop = frame[y0:y1, x0:x1]
    shrinking = size[0] < crop.shape[1]
    return cv2.resize(crop, size, interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)


class FrameSource(Worker):
    """Reads frames in its own thread and writes them into a `LatestSlot`.

    Capture never waits on processing (newest wins) unless `lockstep` is set, which the
    benchmark's "max" mode and offline processing use so that every frame is processed.
    `open()` runs on the caller's thread so that a bad camera or file fails loudly and
    at once, before any thread starts.
    """

    kind = "source"
    # True when `_read` hands out frames already fitted (an image fitted once at open).
    fits_on_read = False

    def __init__(
        self,
        name: str,
        *,
        size: tuple[int, int] | None = None,
        realtime: bool = True,
        loop: bool = False,
        lockstep: bool = False,
        max_frames: int | None = None,
        zoom: float = 1.0,
        on_error: ErrorCallback | None = None,
    ) -> None:
        super().__init__(f"source-{self.kind}", on_error)
        if not zoom >= 1.0:
            raise ValueError(f"zoom must be at least 1, not {zoom}")
        self.source_name = name
        self.size = size
        # > 1: the centre 1/zoom of each frame, resized to `size` (or back to the input's
        # size): a bigger face from the same video, for `fusecam bench --zoom`.
        self.zoom = zoom
        self.realtime = realtime
        self.loop = loop
        self.lockstep = lockstep
        self.max_frames = max_frames
        self.slot: LatestSlot[FramePacket] | None = None
        self.info: SourceInfo | None = None
        self.frames_read = 0
        self.finished = False
        self.on_end: Callable[[], None] | None = None

    # --- subclass hooks -------------------------------------------------------------
    def _open(self) -> SourceInfo:
        raise NotImplementedError

    def _read(self) -> Frame | None:
        """The next frame, or None at the end of the input."""
        raise NotImplementedError

    def _rewind(self) -> bool:
        """Go back to the first frame for looping; False when not possible."""
        return False

    def _close(self) -> None:
        """Release devices and files."""

    def _interval_s(self) -> float:
        """Seconds between frames when pacing (0 = as fast as the device delivers)."""
        assert self.info is not None
        return 1.0 / self.info.fps if self.realtime and self.info.fps > 0 else 0.0

    # --- public API -----------------------------------------------------------------
    def open(self) -> SourceInfo:
        try:
            # A size asked for is checked before anything is allocated for it.
            if self.size is not None:
                check_frame_size(*self.size, f"{self.kind} size")
            info = self._open()
            check_frame_size(info.width, info.height, info.name)
        except FrameSizeError as exc:
            raise SourceError(str(exc)) from None
        if self.size is not None:
            info = SourceInfo(
                info.kind, info.name, self.size[0], self.size[1], info.fps, info.frame_count
            )
        self.info = info
        return info

    def bind(self, slot: LatestSlot[FramePacket]) -> None:
        self.slot = slot

    def _put(self, frame: Frame) -> None:
        assert self.slot is not None
        if not self.fits_on_read:
            frame = self._fit_size(frame)
        frame.flags.writeable = False
        packet = FramePacket(self.frames_read, time.monotonic_ns(), frame)
        self.frames_read += 1
        self.slot.put(packet)

    def _taken(self) -> bool:
        """Lock-step: wait until the engine took the frame; False when asked to stop."""
        assert self.slot is not None
        while not self.slot.wait_taken(0.1):
            if self._stop.is_set():  # not `stopping`: mypy narrows the property
                return False
        return True

    def _pace(self, next_due: float) -> float | None:
        """Sleep until `next_due`; the next frame's due time, None when asked to stop."""
        delay = next_due - time.monotonic()
        if delay <= 0:
            return time.monotonic()  # running late: don't catch up with a burst of frames
        return None if self.wait(delay) else next_due

    def _fit_size(self, frame: Frame) -> Frame:
        if self.zoom > 1.0:
            h, w = frame.shape[:2]
            return zoom_centre(frame, self.zoom, self.size or (w, h))
        if self.size is None or (frame.shape[1], frame.shape[0]) == self.size:
            return frame
        return cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA)

    def _next_frame(self) -> Frame | None:
        """The next frame, from the start again at the end when looping; None at the end."""
        frame = self._read()
        if frame is None and self.loop and not self.stopping and self._rewind():
            frame = self._read()
            if frame is None and not self.stopping:
                # Rewound, and still nothing: looping on would spin forever at 0 fps.
                raise SourceError(
                    f"{self.source_name}: stopped delivering frames (the file was cut "
                    "short, changed, or is not a video)"
                )
        return frame

    def _run(self) -> None:
        if self.info is None:
            self.open()
        assert self.slot is not None, "bind() a slot before start()"
        interval = self._interval_s()
        next_due = time.monotonic()
        try:
            while not self.stopping:
                if self.max_frames is not None and self.frames_read >= self.max_frames:
                    break
                frame = self._next_frame()
                if frame is None:
                    break
                self._put(frame)
                if self.lockstep and not self._taken():
                    return
                if interval > 0.0:
                    paced = self._pace(next_due + interval)
                    if paced is None:
                        break
                    next_due = paced
        finally:
            self._close()
            self.finished = True
            if self.on_end is not None:
                self.on_end()
