"""The window's live status: frames into the preview (a frame the swap missed marked
RAW), the HUD, the enhancer's measured cost, model fallbacks, providers, the camera,
the mini-previews on the gallery's tiles and crash reports in the message bar.

One part of the main window, given the parts it reads and writes in its constructor.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

from app.gui.controllers.core import AppCore
from app.gui.controllers.enhancer_cost import EnhancerCostMeter
from app.gui.controllers.gallery import GalleryController
from app.gui.controllers.outputs import OutputsController
from app.gui.guard_text import raw_marker, short_guard_text
from app.gui.i18n import tr
from app.gui.original_view import OriginalView
from app.gui.widgets.hud import HudData
from app.gui.widgets.messages import FallbackWatch
from app.gui.widgets.on_air import OnAir
from app.gui.widgets.on_air import summary as on_air_summary
from app.gui.window_layout import WindowLayout
from app.logs import Diagnostics
from engine.models.gpu import nvidia_gpu_present
from engine.runtime.previews import MiniPreviewRenderer
from engine.sources import CameraSource
from engine.tools.doctor import cpu_fallback_advice

HUD_INTERVAL_MS = 250


class WindowStatus(QObject):
    _preview_signal = Signal(str)  # mini-preview ready (emitted on the renderer's thread)
    _crash_signal = Signal(str)  # a crash report's path, from whichever thread crashed

    def __init__(
        self,
        core: AppCore,
        ui: WindowLayout,
        gallery: GalleryController,
        outputs: OutputsController,
        meter: EnhancerCostMeter,
        original: OriginalView,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._core = core
        self._ui = ui
        self._gallery = gallery
        self._outputs = outputs
        self._meter = meter
        self._original = original
        self.renderer = MiniPreviewRenderer(
            core.engine,
            core.library,
            self._preview_signal.emit,  # queued to the GUI thread
        )
        self._preview_signal.connect(self._on_mini_preview)
        self._crash_signal.connect(self._on_crash_report)
        self._hud_timer = QTimer(self)
        self._hud_timer.setInterval(HUD_INTERVAL_MS)
        self._hud_timer.timeout.connect(self._tick)
        self._camera_lost = False
        self._providers_shown: list[str] = []
        self._fallbacks = FallbackWatch()
        core.bridge.frame_ready.connect(self._pull_frame)
        core.stages_ready.connect(self.update_providers)
        outputs.on_air_changed.connect(self._show_on_air)
        ui.on_air.toggled.connect(outputs.toggle)
        for signal in (gallery.face_loaded, gallery.face_removed):
            signal.connect(self.update_preview_keys)
        ui.gallery_panel.visible_changed.connect(self.update_preview_keys)

    def start(self) -> None:
        self._core.session.add_sink(self.renderer)  # a consumer of frames like the outputs
        self._hud_timer.start()

    def stop(self) -> None:
        self._hud_timer.stop()

    def _show_on_air(self, states: list[OnAir]) -> None:
        self._ui.on_air.show_states(states)
        self._ui.on_air_label.setText(on_air_summary(states))

    # --- crash reports --------------------------------------------------------------------
    def watch_crashes(self, diagnostics: Diagnostics) -> None:
        """Say in the message bar where a crash report went (the app may go on)."""
        diagnostics.listeners.append(lambda path: self._crash_signal.emit(str(path)))

    def _on_crash_report(self, path: str) -> None:
        text = tr(
            "Fusecam hit an internal error; a report was written to {path}. "
            "Please attach it when you report the problem."
        )
        self._ui.messages.post(text.format(path=path), "error")

    # --- frames --------------------------------------------------------------------------
    def _pull_frame(self, _frame_id: int) -> None:
        core, preview = self._core, self._ui.preview
        core.bridge.acknowledge()
        _, packet = core.engine.published.read()
        if packet is None:
            return
        original = self._original.showing
        preview.show_frame(packet.frame if original else packet.result)
        output = core.engine.settings.output
        preview.set_marker("" if original else raw_marker(packet.check, output))

    def _on_mini_preview(self, key: str) -> None:
        frame = self.renderer.take(key)
        if frame is not None:
            for tile in self._gallery.tiles_for_key(key):
                tile.set_preview(frame)

    def update_preview_keys(self, _key: str = "") -> None:
        self.renderer.set_keys(self._gallery.visible_keys())

    # --- a few times a second ------------------------------------------------------------------
    def _tick(self) -> None:
        core, ui = self._core, self._ui
        snap = core.engine.stats.snapshot()
        order = [stage.name for stage in core.engine.stages]
        providers = core.providers()  # changes when a neural model comes into use
        states = self._outputs.states
        if providers != self._providers_shown:
            self.update_providers()
        ui.hud.set_data(
            HudData.from_snapshot(
                snap,
                providers,
                order,
                governor=core.engine.governor.status(),
                enhancer_costs=[c.text() for c in self._meter.costs.values()],
                on_air=(on_air_summary(states), any(s.on and not s.busy for s in states)),
            )
        )
        cost = self._meter.tick(time.monotonic())
        if cost is not None:
            ui.controls.set_enhancer_cost(tr("cost — {cost}").format(cost=cost.text()))
        ui.guard_label.setText(short_guard_text(self._outputs.outputs.status().guard))
        self._show_fallbacks()
        source = core.session.source
        lost = isinstance(source, CameraSource) and source.lost
        if self._camera_lost and not lost:
            ui.messages.post(tr("The camera is back."), "info")
        self._camera_lost = lost

    def _show_fallbacks(self) -> None:
        _, packet = self._core.engine.published.read()
        if packet is not None:
            settings = self._core.engine.settings
            wanted = {
                "swapper": settings.swap.swapper != "builtin",
                "enhancer": settings.enhancer.mode == "neural",
            }
            for stage, reason in self._fallbacks.update(packet.fallbacks):
                self._ui.messages.show_fallback(stage, reason, wanted.get(stage, False))

    def update_providers(self) -> None:
        providers = self._providers_shown = self._core.providers()
        label = self._ui.provider_label
        text = ", ".join(p.removesuffix("ExecutionProvider") for p in providers)
        label.setText(tr("provider: {names}").format(names=text or tr("none")))
        cpu_only = bool(providers) and all(p.startswith("CPU") for p in providers)
        if not cpu_only:
            tip = ""
        elif nvidia_gpu_present():
            tip = tr("Running on the CPU: no GPU execution provider could be loaded.")
        else:
            tip = tr("Running on the CPU (no NVIDIA GPU found).")
        label.setToolTip(tip)
        self.advise_on_providers(providers)

    def advise_on_providers(self, providers: list[str]) -> None:
        """A GPU was asked for and the models run on the CPU: say so, with the fix."""
        advice = cpu_fallback_advice(self._core.engine.settings.models.provider, providers)
        if advice is not None:
            self._ui.messages.post(advice, "warning", key="cpu-fallback")
