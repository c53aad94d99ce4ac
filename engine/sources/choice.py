"""What feeds the engine, as the user picks it (`InputChoice`), and opening that source."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.core.imageio import IMAGE_SUFFIXES
from engine.core.imagesize import check_frame_size
from engine.core.threads import ErrorCallback
from engine.sources import CameraSource, DemoSource, ImageSource, VideoFileSource
from engine.sources.base import FrameSource, SourceError

log = logging.getLogger(__name__)

InputKind = Literal["auto", "camera", "demo", "file"]
MAX_CAMERA_INDEX = 256  # OpenCV's backends take an index in the low hundreds at most


@dataclass(frozen=True, slots=True)
class InputChoice:
    """What feeds the engine. `auto` = camera 0, or the demo when no camera opens."""

    kind: InputKind = "auto"
    device: int | str = 0
    width: int | None = 1280
    height: int | None = 720
    fps: float | None = 30.0
    path: str | None = None  # video file or image when kind == "file"

    def __post_init__(self) -> None:
        if self.kind not in ("auto", "camera", "demo", "file"):
            raise ValueError(f"unknown input kind {self.kind!r}")
        if self.kind == "file" and not self.path:
            raise ValueError("a file input needs a path")
        if isinstance(self.device, int) and not 0 <= self.device < MAX_CAMERA_INDEX:
            raise ValueError(f"camera index {self.device} is out of range")
        if (self.width is None) != (self.height is None):
            raise ValueError("give both a width and a height, or neither")
        if self.width is not None and self.height is not None:
            if not (16 <= self.width <= 8192 and 16 <= self.height <= 8192):
                raise ValueError(f"input size {self.width}x{self.height} is out of range")
            check_frame_size(self.width, self.height, "input size")
        if self.fps is not None and not 1.0 <= self.fps <= 240.0:
            raise ValueError(f"input frame rate {self.fps} is out of range (1..240)")

    def label(self) -> str:
        if self.kind == "demo":
            return "Demo"
        if self.kind == "file":
            return Path(self.path or "").name
        return f"Camera {self.device}"


def make_input_source(choice: InputChoice, on_error: ErrorCallback | None = None) -> FrameSource:
    """Build and open the source a choice names (blocking: call off the GUI thread).

    `auto` tries camera 0 and falls back to the demo; the fallback is not silent: the
    returned source's kind says "demo" and the caller tells the user.
    """
    size = (choice.width, choice.height) if choice.width and choice.height else None
    source: FrameSource
    if choice.kind == "demo":
        source = DemoSource(size=size, on_error=on_error)
    elif choice.kind == "file":
        path = Path(choice.path or "")
        if path.suffix.lower() in IMAGE_SUFFIXES:
            source = ImageSource(path, on_error=on_error)
        else:
            source = VideoFileSource(path, loop=True, on_error=on_error)
    else:
        source = CameraSource(
            choice.device, choice.width, choice.height, choice.fps, on_error=on_error
        )
        if choice.kind == "auto":
            try:
                source.open()
            except SourceError as exc:
                log.warning("%s; using the demo source", exc)
                source = DemoSource(size=size, on_error=on_error)
    if source.info is None:
        source.open()
    return source


def choice_for_source(source: FrameSource, base: InputChoice) -> InputChoice:
    """The picker entry for a running source (keeping `base`'s resolution and rate)."""
    if isinstance(source, DemoSource):
        return dataclasses.replace(base, kind="demo", path=None)
    if isinstance(source, CameraSource):
        return dataclasses.replace(base, kind="camera", device=source.device, path=None)
    if isinstance(source, ImageSource | VideoFileSource):
        return dataclasses.replace(base, kind="file", path=str(source.path))
    return base
