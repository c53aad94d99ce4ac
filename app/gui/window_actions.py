"""What the menus and shortcuts do that is more than one call: dialogs and toggles.

A base class of `MainWindow`, kept apart so the window module stays about layout and flow.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QTabBar,
    QWidget,
)

from app.gui.controllers.core import AppCore
from app.gui.controllers.gallery import GalleryController, bundled_samples
from app.gui.controllers.outputs import OutputsController
from app.gui.controllers.tasks import TaskRunner
from app.gui.i18n import tr
from app.gui.widgets.controls import ControlPanel
from app.gui.widgets.doctor_dialog import DoctorDialog
from app.gui.widgets.hud import HudOverlay, HudSize
from app.gui.widgets.messages import MessageBar
from app.gui.widgets.models_dialog import ModelsDialog
from app.gui.widgets.outputs_panel import OutputsPanel
from app.gui.widgets.preview import PreviewWidget
from app.gui.widgets.provenance import ActivityLogDialog, WatermarkCheckDialog
from app.gui.widgets.shortcuts import ShortcutsDialog
from app.logs import Diagnostics, log_dir
from engine.core.settings_paths import get_path
from engine.models import ModelError, ModelStore
from engine.runtime.doctor import cpu_fallback_advice
from engine.runtime.previews import MiniPreviewRenderer
from engine.runtime.settings_store import AppState
from engine.sources.choice import InputChoice

IMAGE_FILTER = "(*.jpg *.jpeg *.png *.bmp *.webp)"
INPUT_FILTER = "(*.mp4 *.mov *.avi *.mkv *.webm *.jpg *.jpeg *.png *.bmp)"
# Controls that Space operates once the keyboard has moved focus to them (they take
# focus by Tab only, so a mouse click leaves Space to the original view).
KEYBOARD_CONTROLS = (
    QAbstractButton,
    QComboBox,
    QAbstractSlider,
    QTabBar,
    QAbstractItemView,
    QLineEdit,
    QAbstractSpinBox,
)


class WindowActions(QMainWindow):
    _crash_signal = Signal(str)  # a crash report's path, from whichever thread crashed
    # Provided by MainWindow.
    state: AppState
    messages: MessageBar
    core: AppCore
    controls: ControlPanel
    gallery: GalleryController
    outputs: OutputsController
    hud: HudOverlay
    preview: PreviewWidget
    outputs_panel: OutputsPanel
    provider_label: QLabel
    dock: QDockWidget
    renderer: MiniPreviewRenderer
    hud_action: QAction  # set by build_menus (original_action too)
    original_action: QAction
    _last_enhancer_mode: str = "builtin"
    showing_original = False
    _original_toggled = False  # the original view is on without Space held

    def _user_input(self, choice: InputChoice) -> None:
        raise NotImplementedError

    def schedule_save(self) -> None:
        raise NotImplementedError

    def show_notice(self) -> None:
        raise NotImplementedError

    def save_state(self) -> None:
        raise NotImplementedError

    # --- diagnostics ---------------------------------------------------------------------
    def watch_crashes(self, diagnostics: Diagnostics) -> None:
        """Say in the message bar where a crash report went (the app may go on)."""
        self._crash_signal.connect(self._on_crash_report)
        diagnostics.listeners.append(lambda path: self._crash_signal.emit(str(path)))

    def _on_crash_report(self, path: str) -> None:
        text = tr(
            "Fusecam hit an internal error; a report was written to {path}. "
            "Please attach it when you report the problem."
        )
        self.messages.post(text.format(path=path), "error")

    def show_doctor(self) -> None:
        folder = log_dir()
        DoctorDialog(
            self.core.engine.settings.models.provider,
            tr("Log file and crash reports: {folder}").format(folder=folder),
            self,
        ).exec()

    def check_watermark_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self, tr("Check a file for the watermark"), "", tr("Images and videos (*)")
        )
        if name:
            WatermarkCheckDialog(Path(name), self).exec()

    def show_activity_log(self) -> None:
        ActivityLogDialog(parent=self).exec()

    def advise_on_providers(self, providers: list[str]) -> None:
        """A GPU was asked for and the models run on the CPU: say so, with the fix."""
        advice = cpu_fallback_advice(self.core.engine.settings.models.provider, providers)
        if advice is not None:
            self.messages.post(advice, "warning", key="cpu-fallback")

    # --- dialogs -------------------------------------------------------------------------
    def open_input_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            tr("Open a video or image as input"),
            "",
            tr("Videos and images") + " " + INPUT_FILTER,
        )
        if path:
            self._user_input(dataclasses.replace(self.controls.choice, kind="file", path=path))

    def add_faces_dialog(self) -> None:
        images = tr("Images") + " " + IMAGE_FILTER
        paths, _ = QFileDialog.getOpenFileNames(self, tr("Add face photos"), "", images)
        if paths:
            self.gallery.add_files(Path(p) for p in paths)

    def add_person_dialog(self) -> None:
        images = tr("Images") + " " + IMAGE_FILTER
        paths, _ = QFileDialog.getOpenFileNames(self, tr("Photos of one person"), "", images)
        if paths:
            self.gallery.add_group([Path(p) for p in paths])

    def restore_samples(self) -> None:
        for entry in bundled_samples():
            self.gallery.add_group([Path(p) for p in entry.paths])

    def choose_record_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, tr("Folder for recordings"))
        if folder:
            self.outputs.record_dir = Path(folder)
            self.schedule_save()

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self).open()

    def show_models(self) -> ModelsDialog:
        """The Models dialog (non-modal: the stream keeps running behind it)."""
        settings = self.core.engine.settings
        in_use = [settings.models.enhancer_model]
        if settings.swap.swapper != "builtin":
            in_use += [settings.models.swapper_model, settings.models.recognition_model]
        jobs = TaskRunner("models-dialog", self)  # stopped by the dialog when it closes
        dialog = ModelsDialog(ModelStore(), jobs, in_use, self)
        dialog.use_requested.connect(self._use_models)
        dialog.changed.connect(self.refresh_model_choices)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.models_dialog = dialog
        return dialog

    def _use_models(self, edits: list[tuple[str, str]]) -> None:
        for path, value in edits:
            self.core.apply(path, value)
        self.refresh_model_choices()

    def refresh_model_choices(self) -> None:
        """The neural enhancers the Enhancer section offers (registered GFPGAN models)."""
        try:
            statuses = ModelStore().list_status()
        except (ModelError, OSError, ValueError) as exc:  # a broken registry: say so, go on
            self.messages.post(
                tr("Models could not be listed: {error}").format(error=exc), "warning"
            )
            return
        names = [s.spec.name for s in statuses if s.spec.family == "gfpgan" and s.available]
        self.controls.set_enhancer_models(names)
        self.controls.sync(self.core.engine.settings)

    # --- the original view (menu, shortcut, Space held) ------------------------------------
    def set_showing_original(self, on: bool) -> None:
        self.showing_original = on
        if not on:
            caption = ""
        elif self._original_toggled:
            caption = tr("ORIGINAL — press O to go back")
        else:
            caption = tr("ORIGINAL — release Space to go back")
        self.preview.set_caption(caption)
        if on:
            self.preview.set_marker("")
        self.original_action.setChecked(on)
        _, packet = self.core.engine.output.read()
        if packet is not None:
            self.preview.show_frame(packet.frame if on else packet.result)

    def toggle_original(self) -> None:
        self._original_toggled = not self.showing_original
        self.set_showing_original(self._original_toggled)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Hold Space anywhere in this window to see the original (buttons don't eat it)."""
        if event.type() in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            key_event: QKeyEvent = event  # type: ignore[assignment]
            if (
                key_event.key() == Qt.Key.Key_Space
                and isinstance(watched, QWidget)
                and watched.window() is self
                and not isinstance(watched, KEYBOARD_CONTROLS)
            ):
                if not key_event.isAutoRepeat():
                    pressed = event.type() == QEvent.Type.KeyPress
                    self.set_showing_original(pressed or self._original_toggled)
                return True
        return super().eventFilter(watched, event)

    # --- toggles -------------------------------------------------------------------------
    def _toggle(self, path: str) -> None:
        self.core.apply(path, not get_path(self.core.engine.settings, path))

    def toggle_swap(self) -> None:
        self._toggle("swap.enabled")

    def toggle_mirror(self) -> None:
        self._toggle("output.mirror")

    def toggle_enhancer(self) -> None:
        """Off ↔ the mode last used (built-in the first time)."""
        mode = self.core.engine.settings.enhancer.mode
        if mode != "off":
            self._last_enhancer_mode = mode
            self.core.apply("enhancer.mode", "off")
        else:
            self.core.apply("enhancer.mode", self._last_enhancer_mode)

    def toggle_hud(self) -> None:
        self.hud.setVisible(not self.hud.isVisible())
        self.hud_action.setChecked(self.hud.isVisible())
        self.schedule_save()

    def set_hud_size(self, mode: HudSize) -> None:
        self.hud.set_size_mode(mode)
        self.schedule_save()

    def toggle_controls(self) -> None:
        """Hide the control panel for the biggest preview (C, or View → Control panel)."""
        self.dock.setVisible(not self.dock.isVisible())
        self.schedule_save()

    def set_language(self, language: str) -> None:
        """Takes effect at the next start (every text is set when its widget is built)."""
        self.state = dataclasses.replace(self.state, language=language)
        self.save_state()
        self.messages.post(tr("The language changes when Fusecam starts again."), "info")

    def toggle_virtual_camera(self) -> None:
        self.outputs.toggle("virtual_camera")

    def toggle_stream(self) -> None:
        self.outputs.toggle("stream")

    def toggle_recording(self) -> None:
        self.outputs.toggle("record")

    def toggle_fullscreen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
