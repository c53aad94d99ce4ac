"""The unit of work that flows from a source through the stages to the sinks."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import Frame


@dataclass(slots=True)
class FramePacket:
    """One captured frame and everything the stages learn about it.

    `frame` is the captured image and is never written to; stages that change pixels
    write `output` (a new array). Per-stage timings are filled in by the pipeline; a
    stage that had nothing to do this frame says so with `skip` and gets no timing
    (the HUD and the benchmark show its reason, not "0.0 ms"). `steps` holds sub-step
    times when the engine profiles (`with packet.step("name"): ...`).
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
    # Stages that did not run this frame, and why ("tracking", "off", "no face").
    skipped: dict[str, str] = field(default_factory=dict)
    steps: StepTimer = NO_STEPS

    def step(self, name: str) -> AbstractContextManager[None]:
        """Time a part of the current stage as `name` (nothing when not profiling)."""
        return self.steps.step(name)

    def skip(self, stage: str, reason: str) -> None:
        """`stage` (its timing key) did no work this frame, for `reason`."""
        self.skipped[stage] = reason

    @property
    def result(self) -> Frame:
        """The frame to show: the processed output, or the input when nothing changed it."""
        return self.frame if self.output is None else self.output
