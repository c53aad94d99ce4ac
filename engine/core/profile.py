"""Sub-step timing inside stages, for `fusecam bench --profile`.

A packet carries a `StepTimer`; code inside a stage wraps the parts worth seeing:

    with packet.step("ort_run"):
        outputs = session.run(...)

and code that has no packet (a renderer, a model wrapper) takes a `steps: StepTimer =
NO_STEPS` argument and does the same with `steps.step(...)`. Names nest: the engine
opens each stage (`faces`), so a step records as `faces/mesh`, and a step inside it as
`faces/mesh/ort_run`. A step that runs several times in one frame
(one per face) adds up. Times are wall-clock milliseconds on the calling thread.

Profiling is off unless the engine is asked for it (`Engine.profile`): every packet then
holds `NO_STEPS`, whose `step()` hands back one shared do-nothing context. Measured on
the 2-core dev machine (timeit, busy): a step costs 0.5 µs off and about 3 µs on (wall
clock and the thread's CPU clock, each read twice), so the ~25 steps of a frame cost
~12 µs off and ~75 µs on, against a frame of 15–30 ms.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from types import TracebackType

_SEP = "/"
# Steps other threads ran for the stream (a background detection), not on a frame's path.
BACKGROUND_STEPS = "background"


class _Step:
    """One timed step; entering it makes it the parent of steps opened inside."""

    __slots__ = ("_c0", "_key", "_outer", "_owner", "_t0")

    def __init__(self, owner: StepTimer, key: str) -> None:
        self._owner = owner
        self._key = key
        self._outer = ""
        self._t0 = 0
        self._c0 = 0

    def __enter__(self) -> None:
        owner = self._owner
        self._outer = owner.prefix
        owner.prefix = self._key
        self._c0 = time.thread_time_ns()
        self._t0 = time.perf_counter_ns()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        elapsed_ns = time.perf_counter_ns() - self._t0
        cpu_ns = time.thread_time_ns() - self._c0
        owner = self._owner
        owner.prefix = self._outer
        owner.record(self._key, elapsed_ns / 1e6, cpu_ns / 1e6)


class _NoStep:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None


_NO_STEP = _NoStep()


class StepTimer:
    """Named sub-step times of one packet, `{"stage/step[/inner]": ms}`, wall-clock and
    the thread's CPU time; one thread at a time (the one processing the packet).

    The CPU time counts only this thread's work (onnxruntime and OpenCV run on the
    calling thread here), so it compares builds fairly on a machine others are using,
    where wall-clock times also measure the neighbours."""

    __slots__ = ("cpu_ms", "prefix", "times_ms")

    enabled = True

    def __init__(self) -> None:
        self.times_ms: dict[str, float] = {}
        self.cpu_ms: dict[str, float] = {}
        self.prefix = ""  # the step (or stage) now open; new steps nest under it

    def step(self, name: str) -> AbstractContextManager[None]:
        """A context that times its body as `name` under the step now open."""
        return _Step(self, f"{self.prefix}{_SEP}{name}" if self.prefix else name)

    def begin(self, stage: str) -> None:
        """The engine opens each stage: its steps record under the stage's name."""
        self.prefix = stage

    def record(self, key: str, ms: float, cpu_ms: float | None = None) -> None:
        """Add a measured time under the full `key` (times of one name add up)."""
        times = self.times_ms
        times[key] = times.get(key, 0.0) + ms
        if cpu_ms is not None:
            self.cpu_ms[key] = self.cpu_ms.get(key, 0.0) + cpu_ms

    def add(self, name: str, ms: float) -> None:
        """Record a time measured elsewhere (a wait) as `name` under the open step."""
        self.record(f"{self.prefix}{_SEP}{name}" if self.prefix else name, ms)

    def add_background(self, name: str, ms: float, cpu_ms: float) -> None:
        """Work another thread did for the stream (`background/<name>`), off this frame's
        path: the profile lists it apart from the stages."""
        self.record(f"{BACKGROUND_STEPS}{_SEP}{name}", ms, cpu_ms)


class _NoSteps(StepTimer):
    """Profiling off: records nothing, allocates nothing per step."""

    __slots__ = ()

    enabled = False

    def step(self, name: str) -> AbstractContextManager[None]:
        return _NO_STEP

    def begin(self, stage: str) -> None:
        return None

    def record(self, key: str, ms: float, cpu_ms: float | None = None) -> None:
        return None


# Shared by every packet while profiling is off; it never holds any state.
NO_STEPS: StepTimer = _NoSteps()


def parent_of(key: str) -> str:
    """`faces/mesh/ort_run` → `faces/mesh`; a stage name → ""."""
    head, _, _ = key.rpartition(_SEP)
    return head


def depth_of(key: str) -> int:
    """0 for a stage, 1 for its steps, 2 for theirs…"""
    return key.count(_SEP)
