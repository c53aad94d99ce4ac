"""What the menus and shortcuts do that is more than one call: dialogs and toggles.

One part of the main window, given the parts it drives in its constructor. The
shortcuts table (widgets/shortcuts.py) and the menus (menus.py) name these methods.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMainWindow

from app.gui.controllers.core import AppCore
from app.gui.controllers.gallery import GalleryController, bundled_samples
from app.gui.controllers.outputs import OutputsController
from app.gui.controllers.tasks import TaskRunner
from app.gui.i18n import tr
from app.gui.layout_state import HudSize
from app.gui.original_view import OriginalView
from app.gui.widgets.doctor_dialog import DoctorDialog
from app.gui.widgets.models_dialog import ModelsDialog
from app.gui.widgets.notice import ResponsibleUseNotice
from app.gui.widgets.provenance import ActivityLogDialog, WatermarkCheckDialog
from app.gui.widgets.shortcuts import ShortcutsDialog
from app.gui.window_layout import WindowLayout
from app.gui.window_state import StateKeeper
from app.logs import log_dir
from engine.core.settings_paths import get_path
from engine.models import ModelError, ModelStore
from engine.sources.choice import InputChoice

IMAGE_FILTER = "(*.jpg *.jpeg *.png *.bmp *.webp)"
INPUT_FILTER = "(*.mp4 *.mov *.avi *.mkv *.webm *.jpg *.jpeg *.png *.bmp)"


class WindowActions(QObject):
    def __init__(
        self,
        window: QMainWindow,
        core: AppCore,
        ui: WindowLayout,
        gallery: GalleryController,
        outputs: OutputsController,
        keeper: StateKeeper,
        original: OriginalView,
        choose_input: Callable[[InputChoice], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._core = core
        self._ui = ui
        self._gallery = gallery
        self._outputs = outputs
        self._keeper = keeper
        self._original = original
        self._choose_input = choose_input
        self._last_enhancer_mode = "builtin"
        self.notice: ResponsibleUseNotice | None = None
        self.models_dialog: ModelsDialog | None = None
        self.hud_action = QAction(tr("Heads-up display"), window)
        self.hud_action.setCheckable(True)
        self.hud_action.setChecked(ui.hud.isVisible())
        self.hud_action.triggered.connect(self.toggle_hud)

    # --- the first-launch notice (and Help → Responsible use) --------------------------------
    def show_notice(self) -> None:
        label = self._core.engine.settings.output.synthetic_label
        self.notice = ResponsibleUseNotice(label, self._window)
        self.notice.accepted_with_label.connect(self._notice_accepted)
        self.notice.open()

    def _notice_accepted(self, label: bool) -> None:
        self._keeper.accept_notice()
        self._core.apply("output.synthetic_label", label)
        self._keeper.schedule_save()

    # --- diagnostics ---------------------------------------------------------------------
    def show_doctor(self) -> None:
        folder = log_dir()
        DoctorDialog(
            self._core.engine.settings.models.provider,
            tr("Log file and crash reports: {folder}").format(folder=folder),
            self._window,
        ).exec()

    def check_watermark_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self._window, tr("Check a file for the watermark"), "", tr("Images and videos (*)")
        )
        if name:
            WatermarkCheckDialog(Path(name), self._window).exec()

    def show_activity_log(self) -> None:
        ActivityLogDialog(parent=self._window).exec()

    # --- dialogs -------------------------------------------------------------------------
    def open_input_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self._window,
            tr("Open a video or image as input"),
            "",
            tr("Videos and images") + " " + INPUT_FILTER,
        )
        if path:
            choice = self._ui.controls.choice
            self._choose_input(dataclasses.replace(choice, kind="file", path=path))

    def add_faces_dialog(self) -> None:
        images = tr("Images") + " " + IMAGE_FILTER
        paths, _ = QFileDialog.getOpenFileNames(self._window, tr("Add face photos"), "", images)
        if paths:
            self._gallery.add_files(Path(p) for p in paths)

    def add_person_dialog(self) -> None:
        images = tr("Images") + " " + IMAGE_FILTER
        paths, _ = QFileDialog.getOpenFileNames(
            self._window, tr("Photos of one person"), "", images
        )
        if paths:
            self._gallery.add_group([Path(p) for p in paths])

    def restore_samples(self) -> None:
        for entry in bundled_samples():
            self._gallery.add_group([Path(p) for p in entry.paths])

    def choose_record_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self._window, tr("Folder for recordings"))
        if folder:
            self._outputs.record_dir = Path(folder)
            self._keeper.schedule_save()

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self._window).open()

    def show_models(self) -> ModelsDialog:
        """The Models dialog (non-modal: the stream keeps running behind it)."""
        settings = self._core.engine.settings
        in_use = [settings.models.enhancer_model]
        if settings.swap.swapper != "builtin":
            in_use += [settings.models.swapper_model, settings.models.recognition_model]
        jobs = TaskRunner("models-dialog", self)  # cancelled by the dialog when it closes
        dialog = ModelsDialog(ModelStore(), jobs, in_use, self._window)
        dialog.use_requested.connect(self._use_models)
        dialog.changed.connect(self.refresh_model_choices)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.models_dialog = dialog
        return dialog

    def _use_models(self, edits: list[tuple[str, str]]) -> None:
        for path, value in edits:
            self._core.apply(path, value)
        self.refresh_model_choices()

    def refresh_model_choices(self) -> None:
        """The neural enhancers the Enhancer section offers (registered GFPGAN models)."""
        try:
            statuses = ModelStore().list_status()
        except (ModelError, OSError, ValueError) as exc:  # a broken registry: say so, go on
            self._ui.messages.post(
                tr("Models could not be listed: {error}").format(error=exc), "warning"
            )
            return
        names = [s.spec.name for s in statuses if s.spec.family == "gfpgan" and s.available]
        self._ui.controls.set_enhancer_models(names)
        self._ui.controls.sync(self._core.engine.settings)

    # --- toggles -------------------------------------------------------------------------
    def toggle_original(self) -> None:
        self._original.toggle()

    def _toggle(self, path: str) -> None:
        self._core.apply(path, not get_path(self._core.engine.settings, path))

    def toggle_swap(self) -> None:
        self._toggle("swap.enabled")

    def toggle_mirror(self) -> None:
        self._toggle("output.mirror")

    def toggle_enhancer(self) -> None:
        """Off ↔ the mode last used (built-in the first time)."""
        mode = self._core.engine.settings.enhancer.mode
        if mode != "off":
            self._last_enhancer_mode = mode
            self._core.apply("enhancer.mode", "off")
        else:
            self._core.apply("enhancer.mode", self._last_enhancer_mode)

    def toggle_hud(self) -> None:
        hud = self._ui.hud
        hud.setVisible(not hud.isVisible())
        self.hud_action.setChecked(hud.isVisible())
        self._keeper.schedule_save()

    @property
    def hud_size(self) -> str:
        return self._ui.hud.size_mode

    def set_hud_size(self, mode: HudSize) -> None:
        self._ui.hud.set_size_mode(mode)
        self._keeper.schedule_save()

    def toggle_controls(self) -> None:
        """Hide the control panel for the biggest preview (C, or View → Control panel)."""
        dock = self._ui.dock
        dock.setVisible(not dock.isVisible())
        self._keeper.schedule_save()

    def set_language(self, language: str) -> None:
        """Takes effect at the next start (every text is set when its widget is built)."""
        self._keeper.set_language(language)
        self._keeper.save_state()
        self._ui.messages.post(tr("The language changes when Fusecam starts again."), "info")

    def toggle_virtual_camera(self) -> None:
        self._outputs.toggle("virtual_camera")

    def toggle_stream(self) -> None:
        self._outputs.toggle("stream")

    def toggle_recording(self) -> None:
        self._outputs.toggle("record")

    def toggle_fullscreen(self) -> None:
        if self._window.isFullScreen():
            self._window.showNormal()
        else:
            self._window.showFullScreen()
