"""The GUI's live session: one engine that keeps running while sources and sinks come and go.

`engine.session.Session` fixes its source at construction; the window must switch camera
or file without restarting the app, so here the engine starts once and a new, already
opened source replaces the old one (old stopped first, so two never feed the engine).
No Qt here.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from app.settings_store import InputChoice
from engine.core.imageio import IMAGE_SUFFIXES
from engine.core.threads import ErrorCallback, Worker
from engine.runtime.pipeline import Engine
from engine.sources import CameraSource, DemoSource, ImageSource, VideoFileSource
from engine.sources.base import FrameSource, SourceError

log = logging.getLogger(__name__)


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
    path = getattr(source, "path", None)
    return dataclasses.replace(base, kind="file", path=str(path)) if path else base


class LiveSession:
    """Engine + current source + sinks; stop order: source, engine, sinks (DESIGN.md)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.source: FrameSource | None = None
        self.sinks: list[Worker] = []
        self.switches = 0

    def start(self) -> None:
        self.engine.start()

    def switch_source(self, source: FrameSource, timeout: float = 1.0) -> None:
        """Replace the running source with an opened one; the engine keeps running."""
        old = self.source
        if old is not None:
            old.on_end = None
            old.stop(timeout)
        source.bind(self.engine.input)
        self.source = source
        self.switches += 1
        source.start()

    def add_sink(self, sink: Worker) -> None:
        self.sinks.append(sink)
        sink.start()

    def remove_sink(self, sink: Worker, timeout: float = 2.0) -> bool:
        if sink in self.sinks:
            self.sinks.remove(sink)
        return sink.stop(timeout)

    def threads(self) -> list[Worker]:
        parts: list[Worker] = [self.engine, *self.sinks]
        if self.source is not None:
            parts.insert(0, self.source)
        return parts

    def stop(self, timeout: float = 0.3) -> bool:
        ok = True
        for part in self.threads():
            ok = part.stop(timeout) and ok
        return ok
