"""The main window: preview with HUD, face gallery, controls, outputs, menus and shortcuts.

The GUI thread only displays and routes: engine work runs on the engine thread, slow jobs
on `AppCore`'s task threads and mini-previews on their own low-priority thread.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.gui.controllers.core import AppCore
from app.gui.controllers.gallery import GalleryController, bundled_samples
from app.gui.controllers.outputs import OutputsController
from app.gui.menus import build_menus
from app.gui.qt_compat import guard_none_refcount
from app.gui.widgets.controls import ControlPanel
from app.gui.widgets.gallery import GalleryPanel, display_name
from app.gui.widgets.hud import HudData, HudOverlay
from app.gui.widgets.messages import FallbackWatch, MessageBar
from app.gui.widgets.notice import ResponsibleUseNotice
from app.gui.widgets.outputs_panel import OutputsPanel
from app.gui.widgets.preview import PreviewWidget
from app.gui.widgets.shortcuts import SHORTCUTS
from app.gui.window_actions import WindowActions
from engine.core.settings import EngineSettings
from engine.runtime import settings_store
from engine.runtime.enhancer_cost import EnhancerCostMeter
from engine.runtime.face_selection import FaceSelection
from engine.runtime.previews import MiniPreviewRenderer
from engine.runtime.settings_store import AppState
from engine.sources import CameraSource
from engine.sources.base import FrameSource
from engine.sources.choice import InputChoice, choice_for_source

log = logging.getLogger(__name__)

HUD_INTERVAL_MS = 250
SAVE_DELAY_MS = 400
ENHANCER_STAGE = "enhancer"


class MainWindow(WindowActions):
    _preview_signal = Signal(str)  # mini-preview ready (emitted on the renderer's thread)

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
        self.resize(1280, 800)
        self.setAcceptDrops(True)
        state = state or AppState()
        self.state = state
        self.persist = persist
        self.showing_original = False
        self._original_toggled = False
        self._initial_source = source
        self._input_from_user = False
        settings = FaceSelection.without_faces(state.engine)
        self.core = AppCore(settings, library, self)
        self.meter = EnhancerCostMeter()
        self._enhancer_mode = settings.enhancer.mode
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
        if state.window_geometry:
            self.restoreGeometry(QByteArray.fromBase64(state.window_geometry.encode()))

    # --- construction ----------------------------------------------------------------------
    def _build_ui(self, settings: EngineSettings, state: AppState) -> None:
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(6)
        self.messages = MessageBar()
        self.preview = PreviewWidget()
        self.hud = HudOverlay()
        self.preview.set_overlay(self.hud)
        self.hud.setVisible(state.show_hud)
        self.gallery_panel = GalleryPanel()
        self.gallery_panel.setFixedHeight(232)
        layout.addWidget(self.messages)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.gallery_panel)
        self.setCentralWidget(central)
        self.controls = ControlPanel(settings)
        self.outputs_panel = OutputsPanel()
        # Outputs go right under the everyday swap controls, above label and models.
        self.controls.extra_layout.insertWidget(3, self.outputs_panel)
        self.controls.extra_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.controls)
        scroll.setMinimumWidth(340)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        dock = QDockWidget("Controls")
        dock.setObjectName("controlsDock")
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        dock.setWidget(scroll)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self.source_label = QLabel("starting…")
        self.provider_label = QLabel("")
        self.statusBar().addWidget(self.source_label, 1)
        self.statusBar().addPermanentWidget(self.provider_label)
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
        self.controls.setting_changed.connect(core.apply)
        self.controls.input_changed.connect(self._user_input)
        self.controls.browse_input_requested.connect(self.open_input_dialog)
        self.controls.refresh_cameras_requested.connect(core.enumerate_cameras)
        self.gallery.activate_requested.connect(self.faces.activate)
        self.gallery.face_loaded.connect(self.faces.on_loaded)
        self.gallery.face_removed.connect(self.faces.on_removed)
        self.gallery.face_loaded.connect(self._update_preview_keys)
        self.gallery.face_removed.connect(self._update_preview_keys)
        self.gallery.list_changed.connect(self.schedule_save)
        self.gallery.message.connect(lambda level, text: self.messages.post(text, level))
        self.gallery_panel.add_clicked.connect(self.add_faces_dialog)
        self.gallery_panel.visible_changed.connect(self._update_preview_keys)
        self.outputs.changed.connect(self.schedule_save)
        self.outputs.message.connect(lambda level, text: self.messages.post(text, level))
        self._preview_signal.connect(self._on_mini_preview)
        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_state)
        self._hud_timer = QTimer(self)
        self._hud_timer.setInterval(HUD_INTERVAL_MS)
        self._hud_timer.timeout.connect(self._tick)
        self._camera_lost = False
        self._providers_shown: list[str] = []
        self._fallbacks = FallbackWatch()
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
        self._hud_timer.start()

    # --- frames --------------------------------------------------------------------------
    def _pull_frame(self, _frame_id: int) -> None:
        self.core.bridge.acknowledge()
        _, packet = self.core.engine.output.read()
        if packet is None:
            return
        self.preview.show_frame(packet.frame if self.showing_original else packet.result)

    def _preview_ready_from_thread(self, key: str) -> None:
        self._preview_signal.emit(key)  # queued to the GUI thread

    def _on_mini_preview(self, key: str) -> None:
        frame = self.renderer.take(key)
        if frame is not None:
            for tile in self.gallery.tiles_for_key(key):
                tile.set_preview(frame)

    def _update_preview_keys(self) -> None:
        self.renderer.set_keys(self.gallery.visible_keys())

    def _tick(self) -> None:
        snap = self.core.engine.stats.snapshot()
        order = [stage.name for stage in self.core.engine.stages]
        providers = self.core.providers()  # changes when a neural model comes into use
        if providers != self._providers_shown:
            self._update_providers()
        self.hud.set_data(
            HudData.from_snapshot(
                snap,
                providers,
                self.showing_original,
                order,
                governor=self.core.engine.governor.status(),
                enhancer_costs=[c.text() for c in self.meter.costs.values()],
            )
        )
        now = time.monotonic()
        self.meter.sample(now, self.core.engine.frames_published)
        stage = snap.stages.get(ENHANCER_STAGE)
        cost = self.meter.tick(now, stage.p50_ms if stage else None)
        if cost is not None:
            self.controls.set_enhancer_cost(f"cost — {cost.text()}")
        self._show_fallbacks()
        source = self.core.session.source
        lost = isinstance(source, CameraSource) and source.lost
        if self._camera_lost and not lost:
            self.messages.post("The camera is back.", "info")
        self._camera_lost = lost

    def _show_fallbacks(self) -> None:
        _, packet = self.core.engine.output.read()
        if packet is not None:
            settings = self.core.engine.settings
            wanted = {
                "swapper": settings.swap.swapper != "builtin",
                "enhancer": settings.enhancer.mode == "neural",
            }
            for stage, reason in self._fallbacks.update(packet.info):
                self.messages.show_fallback(stage, reason, wanted.get(stage, False))

    def _update_providers(self) -> None:
        providers = self._providers_shown = self.core.providers()
        text = ", ".join(p.removesuffix("ExecutionProvider") for p in providers)
        self.provider_label.setText(f"provider: {text or 'none'}")
        cpu_only = bool(providers) and all(p.startswith("CPU") for p in providers)
        self.provider_label.setToolTip(
            "Running on the CPU: no GPU execution provider could be loaded." if cpu_only else ""
        )
        self.advise_on_providers(providers)

    # --- settings ------------------------------------------------------------------------
    def _on_settings(self, settings: EngineSettings) -> None:
        old_mode, self._enhancer_mode = self._enhancer_mode, settings.enhancer.mode
        self.controls.sync(settings)
        if old_mode != settings.enhancer.mode:
            self.meter.toggled(time.monotonic(), old_mode, settings.enhancer.mode)
            if self.meter.measuring:
                self.controls.set_enhancer_cost("cost: measuring…")
        self.gallery.show_settings(settings)
        names = [display_name(n) for n in self.gallery.names_for(settings.swap.source_keys)]
        self.controls.set_mapping_text(names)
        self.schedule_save()

    def current_state(self) -> AppState:
        settings = self.faces.for_saving(self.core.engine.settings)
        choice = self.core.choice if self._input_from_user and self.core.choice else None
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
            self.messages.post(f"Settings could not be saved: {exc}", "warning", key="save")

    # --- input ---------------------------------------------------------------------------
    def _user_input(self, choice: InputChoice) -> None:
        self._input_from_user = True
        self.source_label.setText(f"opening {choice.label()}…")
        self.core.switch_input(choice)

    def _on_input_switched(self, choice: InputChoice, source: FrameSource) -> None:
        info = source.info
        self.controls.set_input(choice_for_source(source, choice))
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

    # --- actions (menus and shortcuts) ----------------------------------------------------
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
        self._hud_timer.stop()
        self.outputs.stop()
        self.save_state()
        self.core.stop(0.3)  # the session's shutdown order, then the job threads
        log.info("stopped in %.0f ms", (time.monotonic() - started) * 1000)
        super().closeEvent(event)
