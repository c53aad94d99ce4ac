"""Video file source, paced at the file's frame rate or as fast as possible."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2

from engine.core.imagesize import FrameSizeError, check_frame_size
from engine.core.types import Frame
from engine.sources.base import FrameSource, SourceError, SourceInfo


class VideoFileSource(FrameSource):
    kind = "video"

    def __init__(self, path: str | Path, **kwargs: object) -> None:
        super().__init__(str(path), **kwargs)  # type: ignore[arg-type]
        self.path = Path(path)
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> SourceInfo:
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such video file")
        cap = cv2.VideoCapture(str(self.path))
        if cap.isOpened():
            # The container's size, before the first frame is decoded at that size.
            width = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))
            height = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
            try:
                if width and height:
                    check_frame_size(width, height, str(self.path))
            except FrameSizeError:
                cap.release()
                raise
        ok, first = cap.read() if cap.isOpened() else (False, None)
        if not ok or first is None:
            cap.release()
            raise SourceError(f"{self.path}: not a readable video (OpenCV could not decode it)")
        cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
        fps = cap.get(cv2.CAP_PROP_FPS)
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self._cap = cap
        return SourceInfo(
            self.kind,
            self.path.name,
            first.shape[1],
            first.shape[0],
            fps if 0 < fps < 1000 else 30.0,
            count if count > 0 else None,
        )

    def iter_frames(self) -> Iterator[Frame]:
        """Every frame in order, on the calling thread (offline processing, no pacing)."""
        if self._cap is None:
            self.open()
        try:
            while (frame := self._read()) is not None:
                yield self._fit_size(frame)
        finally:
            self._close()

    def _read(self) -> Frame | None:
        assert self._cap is not None
        ok, frame = self._cap.read()
        return frame if ok else None

    def _rewind(self) -> bool:
        assert self._cap is not None
        return bool(self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0))

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
