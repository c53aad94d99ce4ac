"""The stage contract every processing step follows (DESIGN.md, "Stages").

A base class, not a protocol probed with getattr: every stage has the whole lifecycle,
and the defaults say what a stage without models or threads does (nothing, no providers).
The live session drives it: `prepare` (offline runs and the benchmark, before the first
frame), `process` once per frame on the engine thread, `close` once at shutdown, after
the engine stopped.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings


class Stage(ABC):
    # Unique per stage kind: the key of the stage's timings (packets, HUD, bench JSON).
    name: ClassVar[str]

    def prepare(self, settings: EngineSettings) -> None:
        """Load what `settings` ask for before the first frame (blocking; may run on a
        worker thread). Raises ModelLoadError when a model they need cannot load. Live
        runs skip it: stages with optional models load them on a background thread
        (stages/loader.py) and pass frames through, with the reason, until ready."""
        del settings

    @abstractmethod
    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        """One frame, on the engine thread; returns the packet (usually the same one)."""

    def close(self, timeout: float = 2.0) -> None:
        """Release threads and sessions (once, after the engine stopped); joins for at
        most `timeout` seconds."""
        del timeout

    def providers(self) -> tuple[str, ...]:
        """Execution providers the models of the stage that really runs are on."""
        return ()
