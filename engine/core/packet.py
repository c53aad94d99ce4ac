"""The unit of work that flows from a source through the stages to the sinks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.core.types import Frame


@dataclass(slots=True)
class FramePacket:
    """One captured frame and everything the stages learn about it.

    `frame` is the captured image and is never written to; stages that change pixels
    write `output` (a new array). Per-stage timings are filled in by the pipeline.
    """

    frame_id: int
    capture_ns: int
    frame: Frame
    output: Frame | None = None
    faces: list[Any] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    published_ns: int = 0
    # Free-form per-stage facts (tracking state, detector calls…) for stats and overlays.
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def result(self) -> Frame:
        """The frame to show: the processed output, or the input when nothing changed it."""
        return self.frame if self.output is None else self.output
