"""A still image repeated at a fixed rate (auditioning a source on a photo)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.core.imageio import ImageReadError, read_image
from engine.core.types import Frame
from engine.sources.base import FrameSource, SourceError, SourceInfo


class ImageSource(FrameSource):
    kind = "image"
    fits_on_read = True  # resized (and zoomed) once at open, not per frame

    def __init__(self, path: str | Path, fps: float = 30.0, **kwargs: object) -> None:
        super().__init__(str(path), **kwargs)  # type: ignore[arg-type]
        self.path = Path(path)
        self.fps = fps
        self._image: Frame | None = None

    def _open(self) -> SourceInfo:
        try:
            image = read_image(self.path)
        except ImageReadError as exc:
            # Callers handle one error type for every source.
            raise SourceError(str(exc)) from exc
        self._image = self._fit_size(image)
        return SourceInfo(self.kind, self.path.name, image.shape[1], image.shape[0], self.fps)

    def _read(self) -> Frame | None:
        assert self._image is not None
        # A fresh array per frame: frames are read-only once published downstream.
        return np.array(self._image, copy=True)
