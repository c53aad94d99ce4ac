"""The main window: preview with HUD, face gallery, controls, outputs, menus and shortcuts.

The GUI thread only displays and routes: engine work runs on the engine thread, slow jobs
on `AppCore`'s task threads and mini-previews on their own low-priority thread. Where the
widgets sit is `window_layout.py`; what the menus do, `window_actions.py`; the live
status (frames, HUD, messages), `window_status.py`.
"""

from __future__ import annotations

import dataclasses
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
from PySide6.QtWidgets import QApplication, QWidget

from app.gui.controllers.core import AppCore
from app.gui.controllers.enhancer_cost import EnhancerCostMeter
from app.gui.controllers.face_selection import FaceSelection
from app.gui.controllers.gallery import GalleryController, bundled_samples
from app.gui.controllers.outputs import OutputOptions, OutputsController
from app.gui.i18n import tr
from app.gui.menus import build_menus
from app.gui.qt_compat import guard_none_refcount
from app.gui.widgets.gallery import display_name
from app.gui.widgets.notice import ResponsibleUseNotice
from app.gui.widgets.shortcuts import SHORTCUTS
from app.gui.window_fit import place_window
from app.gui.window_layout import WindowLayout
from app.gui.window_status import WindowStatus
from engine.core.settings import EngineSettings
from engine.runtime import settings_store
from engine.runtime.previews import MiniPreviewRenderer
from engine.runtime.settings_store import AppState
from engine.sources.base import FrameSource
from engine.sources.choice import InputChoice, choice_for_source

log = logging.getLogger(__name__)

SAVE_DELAY_MS = 400


class MainWindow(WindowStatus):
    def __init__(
        self,
        state: AppState | None = None,
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
        state = state or AppState()
        self.state = state
        self.persist = persist
        self._initial_source = source
        self._input_from_user = False
        settings = FaceSelection.without_faces(state.engine)
        self.core = AppCore(settings, library, self)
        self.meter = EnhancerCostMeter()
        self._enhancer_mode = settings.enhancer.mode
        self._face_selection = settings.swap.face_selection
        self._build_ui(settings, state)
        self.gallery = GalleryController(
            self.gallery_panel, self.core.library, self.core.faces, self
        )
        self.outputs = OutputsController(
            self.core,
            self.outputs_panel,
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
            lambda: self.core.engine.settings,
            self.core.set_settings,
            self.gallery.keys,
            state.engine,
        )
        self.renderer = MiniPreviewRenderer(
            self.core.engine, self.core.library, self._preview_ready_from_thread
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
        self.notice: ResponsibleUseNotice | None = None
        if show_notice and not state.notice_accepted:
            QTimer.singleShot(0, self.show_notice)
        place_window(self, state.window_geometry)
        self.refresh_model_choices()

    # --- construction ----------------------------------------------------------------------
    def _build_ui(self, settings: EngineSettings, state: AppState) -> None:
        self.ui = ui = WindowLayout(self, settings, state)
        self.messages, self.preview, self.hud = ui.messages, ui.preview, ui.hud
        self.gallery_panel, self.controls = ui.gallery_panel, ui.controls
        self.outputs_panel, self.dock = ui.outputs_panel, ui.dock
        self.source_label, self.provider_label = ui.source_label, ui.provider_label
        build_menus(self)
        for shortcut in SHORTCUTS:
            if shortcut.action and shortcut.action != "close":
                QShortcut(QKeySequence(shortcut.keys), self, getattr(self, shortcut.action))
        for number in range(1, 10):
            QShortcut(
                QKeySequence(str(number)), self, lambda n=number: self.gallery.activate_number(n)
            )

    def _wire(self) -> None:
        core = self.core
        core.bridge.frame_ready.connect(self._pull_frame)
        core.bridge.error.connect(self.messages.post_error)
        core.message.connect(lambda level, text: self.messages.post(text, level))
        core.settings_changed.connect(self._on_settings)
        core.input_switched.connect(self._on_input_switched)
        core.input_failed.connect(self._on_input_failed)
        core.cameras_found.connect(self.controls.set_cameras)
        core.stages_ready.connect(self._update_providers)
        core.engine.add_listener(self.meter.frame)
        self.controls.setting_changed.connect(core.apply)
        self.controls.input_changed.connect(self._user_input)
        self.controls.browse_input_requested.connect(self.open_input_dialog)
        self.controls.refresh_cameras_requested.connect(core.enumerate_cameras)
        self.controls.manage_models_requested.connect(self.show_models)
        self.gallery.activate_requested.connect(self.faces.activate)
        self.gallery.face_loaded.connect(self.faces.on_loaded)
        self.gallery.face_removed.connect(self.faces.on_removed)
        for signal in (self.gallery.face_loaded, self.gallery.face_removed):
            signal.connect(self._update_preview_keys)
            signal.connect(self._on_faces_changed)
        self.gallery.list_changed.connect(self.schedule_save)
        self.gallery.list_changed.connect(self._update_focus_order)
        self.gallery.message.connect(lambda level, text: self.messages.post(text, level))
        self.gallery_panel.add_clicked.connect(self.add_faces_dialog)
        self.gallery_panel.visible_changed.connect(self._update_preview_keys)
        self.outputs.changed.connect(self.schedule_save)
        self.outputs.message.connect(lambda level, text: self.messages.post(text, level))
        self.hud.moved.connect(lambda _corner: self.schedule_save())
        self.hud.size_changed.connect(lambda _mode: self.schedule_save())
        self.ui.splitter.splitterMoved.connect(self._on_splitter_moved)
        self.dock.visibilityChanged.connect(lambda _v: self.schedule_save())
        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_state)
        self.wire_status()
        QApplication.instance().installEventFilter(self)  # type: ignore[union-attr]

    def start(self) -> None:
        """Start the engine, the input and the background work (call after show())."""
        core = self.core
        core.start()
        if self._initial_source is not None:
            source = self._initial_source
            core.use_source(source, choice_for_source(source, self.state.input))
        else:
            core.switch_input(self.state.input)
        core.build_stages()  # queued after opening the input: frames show while it builds
        core.enumerate_cameras()
        self.outputs.start()
        core.session.add_sink(self.renderer)  # a consumer of frames like the outputs
        self.start_status()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.ui.fit_dock(self)
        self.ui.fit_gallery(self.height())
        self._update_focus_order()

    def _on_splitter_moved(self, _pos: int, _index: int) -> None:
        self.ui.gallery_height = self.ui.splitter.sizes()[1]
        self.schedule_save()

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
        self.schedule_save()

    def _on_faces_changed(self, _key: str = "") -> None:
        settings = self.core.engine.settings
        self.gallery.show_settings(settings)
        names = [display_name(n) for n in self.gallery.names_for(settings.swap.source_keys)]
        self.controls.set_mapping_text(names, settings.swap.face_selection == "map")

    def current_state(self) -> AppState:
        settings = self.faces.for_saving(self.core.engine.settings)
        choice = self.core.choice if self._input_from_user and self.core.choice else None
        options = self.outputs.options()
        return dataclasses.replace(
            self.state,
            engine=settings,
            input=choice or self.state.input,
            gallery=self.gallery.entries(),
            show_hud=self.hud.isVisible() if self.isVisible() else self.state.show_hud,
            record_dir=str(self.outputs.record_dir) if self.outputs.record_dir else None,
            stream_port=self.outputs.stream_port,
            output_delay_ms=self.outputs.delay_ms,
            window_geometry=bytes(self.saveGeometry().toBase64().data()).decode(),
            outputs_on=options.on,
            vcam_device=options.vcam_device,
            stream_lan=options.stream_lan,
            stream_token=options.stream_token,
            record_side_by_side=options.record_side_by_side,
            hud_corner=self.hud.corner,
            hud_size=self.hud.size_mode,
            gallery_height=self.ui.gallery_height,
            controls_visible=self.dock.isVisible()
            if self.isVisible()
            else self.state.controls_visible,
        )

    def schedule_save(self) -> None:
        if self.persist:
            self._save_timer.start()

    def save_state(self) -> None:
        if not self.persist:
            return
        self.state = self.current_state()
        try:
            settings_store.save(self.state)
        except OSError as exc:
            text = tr("Settings could not be saved: {error}").format(error=exc)
            self.messages.post(text, "warning", key="save")

    # --- input ---------------------------------------------------------------------------
    def _user_input(self, choice: InputChoice) -> None:
        self._input_from_user = True
        self.source_label.setText(tr("opening {input}…").format(input=choice.label()))
        self.core.switch_input(choice)

    def _on_input_switched(self, choice: InputChoice, source: FrameSource) -> None:
        info = source.info
        self.controls.set_input(choice_for_source(source, choice), info)
        if info is not None:
            self.source_label.setText(
                f"{info.kind}: {info.name} · {info.width}×{info.height} @ {info.fps:g} fps"
            )
        self.schedule_save()

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

    # --- the first-launch notice ------------------------------------------------------------
    def show_notice(self) -> None:
        self.notice = ResponsibleUseNotice(self.core.engine.settings.output.synthetic_label, self)
        self.notice.accepted_with_label.connect(self._notice_accepted)
        self.notice.open()

    def _notice_accepted(self, label: bool) -> None:
        self.state = dataclasses.replace(self.state, notice_accepted=True)
        self.core.apply("output.synthetic_label", label)
        self.schedule_save()

    # --- screenshot and shutdown --------------------------------------------------------------
    def save_screenshot(self, path: Path) -> bool:
        path.parent.mkdir(parents=True, exist_ok=True)
        return bool(self.grab().save(str(path)))

    def closeEvent(self, event: QCloseEvent) -> None:
        started = time.monotonic()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self.stop_status()
        self.outputs.stop()
        self.save_state()
        self.core.engine.remove_listener(self.meter.frame)
        self.core.stop(0.3)  # the session's shutdown order, then the job threads
        log.info("stopped in %.0f ms", (time.monotonic() - started) * 1000)
        super().closeEvent(event)
