"""The unit of work that flows from a source through the stages to the sinks."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Literal

from engine.core.face_records import Face
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import Frame

# Why the swap did not happen on a frame (engine.runtime.swap_check decides):
# "starting": the face stages are not running yet (the app builds them in the background,
# their face models load in the background);
# "stage_failed": a stage raised; "no_face": no face found (or the face was lost);
# "swap_off": swapping is switched off; "no_source": no source face chosen or mapped;
# "not_swapped": a face the swapper was asked to replace got no new face.
SwapMiss = Literal["starting", "stage_failed", "no_face", "swap_off", "no_source", "not_swapped"]
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 frame pixels
# What the output guard handed the outputs for a packet (engine.outputs.guard): the
# swapped frame, the last swapped one held, a covered (blurred, pixelated) frame, the
# placeholder card, or the raw frame (the guard switched off).
GuardDecision = Literal["swapped", "held", "covered", "card", "raw"]


@dataclass(frozen=True, slots=True)
class NeuralRun:
    """What a neural stage (swapper, enhancer) did on a packet, for stats and tests."""

    model: str  # the model's name (the enhancer's: its label)
    faces: int  # faces it gave a new patch (swapped) or restored
    missing_sources: tuple[str, ...] = ()  # swapper: source keys that had no latent
    user_supplied: bool = False  # enhancer: a model the user registered


@dataclass(frozen=True, slots=True)
class HandsSeen:
    """What the hand stage found on a packet where it ran."""

    found: int  # hands tracked in the frame
    over_faces: int  # face patches a hand now keeps its pixels in


@dataclass(frozen=True, slots=True)
class SwapCheck:
    """Whether the swap happened on a packet: the output guard's one question.

    `swapped`: every face the swapper was asked to replace got a new face, blended into
    `output`. Otherwise `miss` says why, and `exposed` lists where faces left unswapped
    are (empty when none could be located: the guard then covers the whole frame).
    """

    swapped: bool
    miss: SwapMiss | None = None
    exposed: tuple[Box, ...] = ()


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
    faces: list[Face] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    published_ns: int = 0
    # The engine's time for all the stages (set after they ran): stats, the quality
    # governor and the benchmark read it.
    processing_ms: float = 0.0
    # Stages that did not run this frame, and why ("off", "no face", "loading").
    skipped: dict[str, str] = field(default_factory=dict)
    # Selector stages ("swapper", "enhancer") that ran their built-in stage although the
    # settings asked for a neural one, and why (loading, missing, failed).
    fallbacks: dict[str, str] = field(default_factory=dict)
    # The compositor saw this packet (blended or found nothing to blend). False while
    # the face stages are not installed yet (the app starts with none): the output
    # guard's "starting".
    composited: bool = False
    # The swapper rendered the faces' region at this scale (`quality.internal_scale`,
    # below 1); None at full size.
    internal_scale: float | None = None
    # What the neural swapper and enhancer did, when they ran (None: they did not).
    neural_swap: NeuralRun | None = None
    neural_enhance: NeuralRun | None = None
    # What the hand stage found, when it ran.
    hands: HandsSeen | None = None
    # The output guard's packet for the outputs says what it made of the frame.
    guard: GuardDecision | None = None
    # The built-in face models were not in yet (loading, or their load failed: the
    # face stage's skip reason says which), so no face was looked for: a live packet
    # passes through (engine/stages/face_models.py), the output guard's "starting".
    face_models_loading: bool = False
    # "<stage>: <message>" when a stage raised on this packet (the engine catches it,
    # drops `output` and runs no further stage); None when every stage ran.
    error: str | None = None
    steps: StepTimer = NO_STEPS
    # Set by the engine after the stages ran; None: never processed (treated as a miss).
    check: SwapCheck | None = None
    # Processed by the live engine thread: a stage may let work this frame does not need
    # (the face stage's periodic detection) finish on a later frame. Offline runs
    # (`fusecam swap`, tests) leave it False and stay frame-exact and repeatable.
    live: bool = False

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
