"""The window's engine side: engine, face library, live session, background jobs.

Holds no widgets. Everything slow — building the stages (model sessions, JIT), opening a
camera, enumerating cameras — runs on the `io` task thread; face loading runs on the
`faces` task thread, so one never waits behind the other. Results come back as signals.

The GUI thread never waits on another thread while the app runs: switching the source
(which stops the old source's thread, a join of up to a second) and installing new
stages (which closes the ones they replace, joining their model loaders) happen in the
io job that prepared them, and only the outcome comes back. `stop` at window close is
the exception: it joins, within its timeout, so the stream ends cleanly.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.gui.controllers.bridge import EngineBridge
from app.gui.controllers.tasks import TaskRunner
from app.gui.i18n import tr
from engine.core.settings import EngineSettings
from engine.core.settings_paths import with_path
from engine.core.threads import Worker
from engine.runtime.factory import build_stages, wait_for_face_models
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import CameraSource, DemoSource
from engine.sources.base import FrameSource, SourceError
from engine.sources.choice import InputChoice, make_input_source
from engine.stages.base import Stage
from engine.swap.library import SourceLibrary

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Switched:
    """A source switch that happened: the choice now in use (the demo's when the one
    asked for could not open), its running source, and what to warn the user of."""

    choice: InputChoice
    source: FrameSource
    warning: str | None = None


class AppCore(QObject):
    settings_changed = Signal(object)  # EngineSettings
    stages_ready = Signal()
    input_switched = Signal(object, object)  # InputChoice asked for, FrameSource now running
    input_failed = Signal(object, str)  # InputChoice, message
    cameras_found = Signal(list)
    message = Signal(str, str)  # level, text

    def __init__(
        self, settings: EngineSettings, library: Any | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.library = library if library is not None else SourceLibrary()
        self.engine = Engine([], settings)
        self.bridge = EngineBridge(self.engine, self)
        self.session = LiveSession(self.engine, on_error=self.bridge.report_error)
        self.io = TaskRunner("app-io", self)
        self.faces = TaskRunner("app-faces", self)
        self.choice: InputChoice | None = None
        self.stages_built = False
        self.stages_settled = False  # built or failed: nothing more will change by itself
        self._building = False
        self._rebuild_wanted = False
        self._opening: InputChoice | None = None
        self._wanted: InputChoice | None = None

    # --- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Start the session (frames pass through until `build_stages` finished)."""
        self.session.start()

    def build_stages(self) -> None:
        """Build the stage list off the GUI thread (model sessions, JIT) and install it
        there too (the stages it replaces are closed, their loaders joined). Model
        choices need no rebuild: the selector stages switch per frame and load models in
        the background. While one build runs, further requests fold into one more."""
        if self._building:
            self._rebuild_wanted = True
            return
        self._building = True
        settings = self.engine.settings
        self.io.submit(lambda: self._build_and_install(settings), self._on_stages)

    def _build_and_install(self, settings: EngineSettings) -> list[Stage]:
        """On the io thread. The stages go in at once and pass frames through ("loading")
        while their face models load on their own thread; this job waits for that load,
        so "ready" (and the providers shown) means the models run."""
        stages = build_stages(settings, (), library=self.library)
        self.session.set_stages(stages)
        wait_for_face_models(stages, settings)
        return stages

    def _on_stages(self, stages: list[Stage] | None, error: BaseException | None) -> None:
        self._building = False
        self.stages_settled = True
        if error is not None or stages is None:
            log.error("building the face stages failed: %s", error)
            self.message.emit(
                "error",
                tr(
                    "The face-swap stages could not start ({error}); the preview shows the "
                    "camera image, the outputs show a placeholder card."
                ).format(error=error),
            )
        else:
            self.stages_built = True
            self.stages_ready.emit()
        if self._rebuild_wanted:
            self._rebuild_wanted = False
            self.build_stages()

    def providers(self) -> list[str]:
        return self.session.providers()

    def threads(self) -> list[Worker]:
        return [*self.session.threads(), self.io.worker, self.faces.worker]

    def stop(self, timeout: float = 0.3) -> bool:
        """The session (source, engine, outputs and sinks, stage loaders: DESIGN.md
        order), then the job threads."""
        self.bridge.detach()
        ok = self.session.stop(timeout)
        ok = self.io.stop(timeout) and ok
        return self.faces.stop(timeout) and ok

    # --- settings ------------------------------------------------------------------------
    def set_settings(self, settings: EngineSettings) -> None:
        self.engine.set_settings(settings)
        self.settings_changed.emit(settings)

    def apply(self, path: str, value: Any) -> bool:
        """One control's edit; an invalid value is refused with a message, never raised."""
        try:
            settings = with_path(self.engine.settings, path, value)
        except (ValueError, TypeError) as exc:
            self.message.emit("warning", f"{path}: {exc}")
            self.settings_changed.emit(self.engine.settings)  # show the value still in use
            return False
        self.set_settings(settings)
        return True

    # --- input ---------------------------------------------------------------------------
    def use_source(self, source: FrameSource, choice: InputChoice) -> None:
        """An already built source (command line, tests), opened and switched to on the
        io thread. One that cannot open (`--camera 0` with no camera) gives way to the
        demo, with a message: the app opens either way."""
        self._switch(choice, lambda: self._use(source, choice))

    def switch_input(self, choice: InputChoice) -> None:
        """Open the new input and switch to it off the GUI thread; the old one runs
        until the new is ready. While one opens, only the latest further request is kept."""
        self._switch(choice, lambda: self._open(choice))

    def _switch(self, choice: InputChoice, job: Callable[[], Switched]) -> None:
        if self._opening is not None:
            self._wanted = choice
            return
        self._opening = choice
        self.io.submit(job, lambda done, error: self._on_switched(choice, done, error))

    # These run on the io thread: `switch_source` stops the old source (a join).
    def _use(self, source: FrameSource, choice: InputChoice) -> Switched:
        try:
            self.session.switch_source(source)
        except SourceError as exc:
            return self._demo_instead(str(exc), choice)
        return Switched(choice, source)

    def _open(self, choice: InputChoice) -> Switched:
        try:
            source = make_input_source(choice, self.bridge.report_error)
        except Exception as exc:
            if self.session.source is not None:
                raise  # the previous input runs on: the failure is reported, nothing more
            # Nothing runs yet (the saved camera is gone): the demo, not a black window.
            return self._demo_instead(str(exc), choice)
        self.session.switch_source(source)
        warning = None
        if choice.kind == "auto" and source.kind == "demo":
            warning = tr(
                "No camera could be opened; showing the demo "
                "source. Pick a camera in Input when one is connected."
            )
        return Switched(choice, source, warning)

    def _demo_instead(self, reason: str, choice: InputChoice) -> Switched:
        """The demo source, running, after `choice` could not open; the user is told."""
        size = (choice.width, choice.height) if choice.width and choice.height else None
        demo = DemoSource(size=size, on_error=self.bridge.report_error)
        self.session.switch_source(demo)
        warning = tr(
            "{reason} — showing the demo instead. Pick a camera in Input when one is connected."
        ).format(reason=reason)
        return Switched(dataclasses.replace(choice, kind="demo", path=None), demo, warning)

    def _on_switched(
        self, choice: InputChoice, done: Switched | None, error: BaseException | None
    ) -> None:
        """On the GUI thread: the switch's outcome, told to the window."""
        self._opening = None
        if error is not None or done is None:
            self.input_failed.emit(choice, str(error))
        else:
            if done.warning is not None:
                self.message.emit("warning", done.warning)
            self.choice = done.choice
            self.input_switched.emit(done.choice, done.source)
        wanted, self._wanted = self._wanted, None
        if wanted is not None and wanted != self.choice:
            self.switch_input(wanted)

    def enumerate_cameras(self) -> None:
        self.io.submit(CameraSource.enumerate, self._on_cameras)

    def _on_cameras(self, found: list[int] | None, error: BaseException | None) -> None:
        if error is not None:
            self.message.emit("warning", tr("Could not list cameras: {error}").format(error=error))
            return
        self.cameras_found.emit(found or [])
