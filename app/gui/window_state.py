"""What the window saves: its `GuiState` (the app's state, the window's layout, its
language and the notice accepted), built from the parts that hold each piece, and
written a moment after the last change (a burst of edits is one write).

One part of the main window, given the parts it reads in its constructor.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMainWindow

from app.gui.controllers.core import AppCore
from app.gui.controllers.face_selection import FaceSelection
from app.gui.controllers.gallery import GalleryController
from app.gui.controllers.outputs import OutputsController
from app.gui.i18n import tr
from app.gui.layout_state import DesktopState, GuiState, LayoutState
from app.gui.window_layout import WindowLayout
from engine.persist import settings_store

SAVE_DELAY_MS = 400


class StateKeeper(QObject):
    def __init__(
        self,
        window: QMainWindow,
        state: GuiState,
        persist: bool,
        core: AppCore,
        ui: WindowLayout,
        gallery: GalleryController,
        outputs: OutputsController,
        faces: FaceSelection,
    ) -> None:
        super().__init__(window)
        self.state = state
        self.persist = persist
        self.input_from_user = False  # the input was chosen in this run: save it
        self._window = window
        self._core = core
        self._ui = ui
        self._gallery = gallery
        self._outputs = outputs
        self._faces = faces
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save_state)

    def current_state(self) -> GuiState:
        outputs, state = self._outputs, self.state
        settings = self._faces.for_saving(self._core.engine.settings)
        choice = self._core.choice if self.input_from_user and self._core.choice else None
        options = outputs.options()
        return dataclasses.replace(
            state,
            engine=settings,
            input=choice or state.input,
            gallery=self._gallery.entries(),
            record_dir=str(outputs.record_dir) if outputs.record_dir else None,
            stream_port=outputs.stream_port,
            output_delay_ms=outputs.delay_ms,
            outputs_on=options.on,
            vcam_device=options.vcam_device,
            stream_lan=options.stream_lan,
            stream_token=options.stream_token,
            record_side_by_side=options.record_side_by_side,
            layout=self._layout(),
        )

    def _layout(self) -> LayoutState:
        window, ui, saved = self._window, self._ui, self.state.layout
        shown = window.isVisible()  # hidden, its parts report hidden too: keep what was saved
        return LayoutState(
            geometry=bytes(window.saveGeometry().toBase64().data()).decode(),
            show_hud=ui.hud.isVisible() if shown else saved.show_hud,
            hud_corner=ui.hud.corner,
            hud_size=ui.hud.size_mode,
            gallery_height=ui.gallery_height,
            controls_visible=ui.dock.isVisible() if shown else saved.controls_visible,
        )

    # The desktop section's fields no part holds: changed here, saved with the rest.
    def accept_notice(self) -> None:
        self._set_desktop(dataclasses.replace(self.state.desktop, notice_accepted=True))

    def set_language(self, language: str) -> None:
        self._set_desktop(dataclasses.replace(self.state.desktop, language=language))

    def _set_desktop(self, desktop: DesktopState) -> None:
        self.state = dataclasses.replace(self.state, desktop=desktop)

    def schedule_save(self) -> None:
        if self.persist:
            self._timer.start()

    def save_state(self) -> None:
        if not self.persist:
            return
        self.state = self.current_state()
        try:
            settings_store.save(self.state)
        except OSError as exc:
            text = tr("Settings could not be saved: {error}").format(error=exc)
            self._ui.messages.post(text, "warning", key="save")
