"""The main window: preview with HUD, face gallery, controls, outputs, menus and shortcuts.

The GUI thread only displays and routes: engine work runs on the engine thread, slow jobs
on `AppCore`'s task threads and mini-previews on their own low-priority thread.

The window is composed of parts it creates and holds, each given what it needs:
`WindowLayout` (where the widgets sit), `StateKeeper` (what is saved, and when),
`OriginalView` (Space / O), `WindowStatus` (frames, HUD, providers, messages) and
`WindowActions` (what the menus and shortcuts do). What stays here is the flow between
them: settings, the input, drops, start and close.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import QMainWindow, QWidget

from app.gui.controllers.core import AppCore
from app.gui.controllers.enhancer_cost import EnhancerCostMeter
from app.gui.controllers.face_selection import FaceSelection
from app.gui.controllers.gallery import GalleryController, bundled_samples
from app.gui.controllers.outputs import OutputOptions, OutputsController
from app.gui.i18n import tr
from app.gui.layout_state import GuiState
from app.gui.menus import build_menus
from app.gui.original_view import OriginalView
from app.gui.qt_compat import guard_none_refcount
from app.gui.widgets.gallery import display_name
from app.gui.widgets.shortcuts import SHORTCUTS
from app.gui.window_actions import WindowActions
from app.gui.window_fit import place_window
from app.gui.window_layout import WindowLayout
from app.gui.window_state import StateKeeper
from app.gui.window_status import WindowStatus
from engine.core.settings import EngineSettings
from engine.sources.base import FrameSource
from engine.sources.choice import InputChoice, choice_for_source

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    def __init__(
        self,
        state: GuiState | None = None,
        *,
        source: FrameSource | None = None,
        source_faces: Sequence[Path] = (),
        library: Any | None = None,
        persist: bool = True,
        show_notice: bool = True,
        startup_messages: Sequence[str] = (),
    ) -> None:
        super().__init__()
        guard_none_refcount()  # before the thousands of Qt calls a live window makes
        self.setWindowTitle("Fusecam")
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        state = state or GuiState()
        self._initial_source = source
        settings = FaceSelection.without_faces(state.engine)
        self.core = core = AppCore(settings, library, self)
        self.meter = EnhancerCostMeter()
        self._enhancer_mode = settings.enhancer.mode
        self._face_selection = settings.swap.face_selection
        self.ui = ui = WindowLayout(self, settings, state.layout)
        # The widgets the flow below and the tests reach most often.
        self.messages, self.preview, self.hud = ui.messages, ui.preview, ui.hud
        self.gallery_panel, self.controls = ui.gallery_panel, ui.controls
        self.outputs_panel, self.dock = ui.outputs_panel, ui.dock
        self.source_label, self.provider_label = ui.source_label, ui.provider_label
        self.gallery = GalleryController(ui.gallery_panel, core.library, core.faces, self)
        self.outputs = OutputsController(
            core,
            ui.outputs_panel,
            Path(state.record_dir) if state.record_dir else None,
            state.stream_port,
            state.output_delay_ms if 0 <= state.output_delay_ms <= 1000 else 0,
            OutputOptions(
                state.outputs_on,
                state.vcam_device,
                state.stream_lan,
                state.stream_token,
                state.record_side_by_side,
            ),
        )
        self.faces = FaceSelection(
            lambda: core.engine.settings, core.set_settings, self.gallery.keys, state.engine
        )
        self.keeper = StateKeeper(
            self, state, persist, core, ui, self.gallery, self.outputs, self.faces
        )
        self.original = OriginalView(self, ui.preview, core.engine)
        self.status = WindowStatus(
            core, ui, self.gallery, self.outputs, self.meter, self.original, self
        )
        self.renderer = self.status.renderer
        self.commands = WindowActions(
            self, core, ui, self.gallery, self.outputs, self.keeper, self.original, self._user_input
        )
        build_menus(self, self.commands, self.original, state.desktop.language)
        for shortcut in SHORTCUTS:
            if shortcut.action and shortcut.action != "close":
                QShortcut(
                    QKeySequence(shortcut.keys), self, getattr(self.commands, shortcut.action)
                )
        for number in range(1, 10):
            QShortcut(
                QKeySequence(str(number)), self, lambda n=number: self.gallery.activate_number(n)
            )
        self._wire()
        if source_faces:
            # Faces load in order on one thread: the command line's face loads first and,
            # with no saved face to wait for, becomes the active one.
            self.faces.forget_saved()
            self.gallery.add_group(list(source_faces), notify=False)
        self.gallery.restore(state.gallery if state.gallery is not None else bundled_samples())
        for text in startup_messages:
            self.messages.post(text, "warning")
        if show_notice and not state.desktop.notice_accepted:
            QTimer.singleShot(0, self.commands.show_notice)
        place_window(self, state.layout.geometry)
        self.commands.refresh_model_choices()

    # --- construction ----------------------------------------------------------------------
    def _wire(self) -> None:
        core, save = self.core, self.keeper.schedule_save
        core.bridge.error.connect(self.messages.post_error)
        core.message.connect(lambda level, text: self.messages.post(text, level))
        core.settings_changed.connect(self._on_settings)
        core.input_switched.connect(self._on_input_switched)
        core.input_failed.connect(self._on_input_failed)
        core.cameras_found.connect(self.controls.set_cameras)
        core.engine.add_listener(self.meter.frame)
        self.controls.setting_changed.connect(core.apply)
        self.controls.input_changed.connect(self._user_input)
        self.controls.browse_input_requested.connect(self.commands.open_input_dialog)
        self.controls.refresh_cameras_requested.connect(core.enumerate_cameras)
        self.controls.manage_models_requested.connect(self.commands.show_models)
        self.gallery.activate_requested.connect(self.faces.activate)
        self.gallery.face_loaded.connect(self.faces.on_loaded)
        self.gallery.face_removed.connect(self.faces.on_removed)
        for signal in (self.gallery.face_loaded, self.gallery.face_removed):
            signal.connect(self._on_faces_changed)
        self.gallery.list_changed.connect(save)
        self.gallery.list_changed.connect(self._update_focus_order)
        self.gallery.message.connect(lambda level, text: self.messages.post(text, level))
        self.gallery_panel.add_clicked.connect(self.commands.add_faces_dialog)
        self.outputs.changed.connect(save)
        self.outputs.message.connect(lambda level, text: self.messages.post(text, level))
        self.hud.moved.connect(lambda _corner: save())
        self.hud.size_changed.connect(lambda _mode: save())
        self.ui.splitter.splitterMoved.connect(self._on_splitter_moved)
        self.dock.visibilityChanged.connect(lambda _v: save())
        self.original.watch_keys()

    def start(self) -> None:
        """Start the engine, the input and the background work (call after show())."""
        core = self.core
        core.start()
        if self._initial_source is not None:
            source = self._initial_source
            core.use_source(source, choice_for_source(source, self.keeper.state.input))
        else:
            core.switch_input(self.keeper.state.input)
        core.build_stages()  # queued after opening the input: frames show while it builds
        core.enumerate_cameras()
        self.outputs.start()
        self.status.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.ui.fit_dock(self)
        self.ui.fit_gallery(self.height())
        self._update_focus_order()

    def _on_splitter_moved(self, _pos: int, _index: int) -> None:
        self.ui.gallery_height = self.ui.splitter.sizes()[1]
        self.keeper.schedule_save()

    def _update_focus_order(self) -> None:
        """Tab moves left to right through the gallery, then into the control panel."""
        chain: list[QWidget] = self.ui.focus_chain()
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # --- settings ------------------------------------------------------------------------
    def _on_settings(self, settings: EngineSettings) -> None:
        old_mode, self._enhancer_mode = self._enhancer_mode, settings.enhancer.mode
        old_faces, self._face_selection = self._face_selection, settings.swap.face_selection
        entering_map = old_faces != "map" and settings.swap.face_selection == "map"
        # Entering map mode, the face in use becomes the leftmost one; the seeded
        # settings come back through this handler.
        if entering_map and self.faces.start_mapping():
            return
        self.controls.sync(settings)
        if old_mode != settings.enhancer.mode:
            self.meter.toggled(time.monotonic(), old_mode, settings.enhancer.mode)
            if self.meter.measuring:
                self.controls.set_enhancer_cost(tr("cost: measuring…"))
        self._on_faces_changed()
        self.keeper.schedule_save()

    def _on_faces_changed(self, _key: str = "") -> None:
        settings = self.core.engine.settings
        self.gallery.show_settings(settings)
        names = [display_name(n) for n in self.gallery.names_for(settings.swap.source_keys)]
        self.controls.set_mapping_text(names, settings.swap.face_selection == "map")

    # --- input ---------------------------------------------------------------------------
    def _user_input(self, choice: InputChoice) -> None:
        self.keeper.input_from_user = True
        self.source_label.setText(tr("opening {input}…").format(input=choice.label()))
        self.core.switch_input(choice)

    def _on_input_switched(self, choice: InputChoice, source: FrameSource) -> None:
        info = source.info
        self.controls.set_input(choice_for_source(source, choice), info)
        if info is not None:
            self.source_label.setText(
                f"{info.kind}: {info.name} · {info.width}×{info.height} @ {info.fps:g} fps"
            )
        self.keeper.schedule_save()

    def _on_input_failed(self, choice: InputChoice, message: str) -> None:
        self.messages.post_error("input", message)
        source = self.core.session.source
        if self.core.choice is not None and source is not None:
            # Still running on the previous input: show that, not the failed choice.
            self._on_input_switched(self.core.choice, source)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(url.toLocalFile()) for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            self.gallery.add_files(paths)
            event.acceptProposedAction()

    # --- screenshot and shutdown --------------------------------------------------------------
    def save_screenshot(self, path: Path) -> bool:
        path.parent.mkdir(parents=True, exist_ok=True)
        return bool(self.grab().save(str(path)))

    def closeEvent(self, event: QCloseEvent) -> None:
        started = time.monotonic()
        self.original.stop_watching()
        self.status.stop()
        self.outputs.stop()
        self.keeper.save_state()
        self.core.engine.remove_listener(self.meter.frame)
        # The one place the GUI thread joins threads: the session's shutdown order, then
        # the job threads, each within the timeout, so the outputs end their files cleanly.
        self.core.stop(0.3)
        log.info("stopped in %.0f ms", (time.monotonic() - started) * 1000)
        super().closeEvent(event)
