"""The window's live status: frames into the preview (a frame the swap missed marked
RAW), the HUD, the enhancer's measured cost, model fallbacks, providers, the camera.

A base class of `MainWindow` (after `WindowActions`), kept apart so the window module
stays about layout and flow.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer, Signal

from app.gui.controllers.enhancer_cost import EnhancerCostMeter
from app.gui.guard_text import raw_marker, short_guard_text
from app.gui.i18n import tr
from app.gui.widgets.hud import HudData
from app.gui.widgets.messages import FallbackWatch
from app.gui.widgets.on_air import OnAir
from app.gui.widgets.on_air import summary as on_air_summary
from app.gui.window_actions import WindowActions
from app.gui.window_layout import WindowLayout
from engine.models.gpu import nvidia_gpu_present
from engine.sources import CameraSource

HUD_INTERVAL_MS = 250


class WindowStatus(WindowActions):
    _preview_signal = Signal(str)  # mini-preview ready (emitted on the renderer's thread)
    meter: EnhancerCostMeter
    ui: WindowLayout

    def wire_status(self) -> None:
        self._preview_signal.connect(self._on_mini_preview)
        self._hud_timer = QTimer(self)
        self._hud_timer.setInterval(HUD_INTERVAL_MS)
        self._hud_timer.timeout.connect(self._tick)
        self._camera_lost = False
        self._providers_shown: list[str] = []
        self._fallbacks = FallbackWatch()
        self.outputs.on_air_changed.connect(self._show_on_air)
        self.ui.on_air.toggled.connect(self.outputs.toggle)

    def _show_on_air(self, states: list[OnAir]) -> None:
        self.ui.on_air.show_states(states)
        self.ui.on_air_label.setText(on_air_summary(states))

    def start_status(self) -> None:
        self._hud_timer.start()

    def stop_status(self) -> None:
        self._hud_timer.stop()

    # --- frames --------------------------------------------------------------------------
    def _pull_frame(self, _frame_id: int) -> None:
        self.core.bridge.acknowledge()
        _, packet = self.core.engine.output.read()
        if packet is None:
            return
        self.preview.show_frame(packet.frame if self.showing_original else packet.result)
        output = self.core.engine.settings.output
        self.preview.set_marker("" if self.showing_original else raw_marker(packet.check, output))

    def _preview_ready_from_thread(self, key: str) -> None:
        self._preview_signal.emit(key)  # queued to the GUI thread

    def _on_mini_preview(self, key: str) -> None:
        frame = self.renderer.take(key)
        if frame is not None:
            for tile in self.gallery.tiles_for_key(key):
                tile.set_preview(frame)

    def _update_preview_keys(self, _key: str = "") -> None:
        self.renderer.set_keys(self.gallery.visible_keys())

    # --- a few times a second ------------------------------------------------------------------
    def _tick(self) -> None:
        snap = self.core.engine.stats.snapshot()
        order = [stage.name for stage in self.core.engine.stages]
        providers = self.core.providers()  # changes when a neural model comes into use
        states = self.outputs.states
        if providers != self._providers_shown:
            self._update_providers()
        self.hud.set_data(
            HudData.from_snapshot(
                snap,
                providers,
                order,
                governor=self.core.engine.governor.status(),
                enhancer_costs=[c.text() for c in self.meter.costs.values()],
                on_air=(on_air_summary(states), any(s.on and not s.busy for s in states)),
            )
        )
        cost = self.meter.tick(time.monotonic())
        if cost is not None:
            self.controls.set_enhancer_cost(tr("cost — {cost}").format(cost=cost.text()))
        self.ui.guard_label.setText(short_guard_text(self.outputs.outputs.status().guard))
        self._show_fallbacks()
        source = self.core.session.source
        lost = isinstance(source, CameraSource) and source.lost
        if self._camera_lost and not lost:
            self.messages.post(tr("The camera is back."), "info")
        self._camera_lost = lost

    def _show_fallbacks(self) -> None:
        _, packet = self.core.engine.output.read()
        if packet is not None:
            settings = self.core.engine.settings
            wanted = {
                "swapper": settings.swap.swapper != "builtin",
                "enhancer": settings.enhancer.mode == "neural",
            }
            for stage, reason in self._fallbacks.update(packet.fallbacks):
                self.messages.show_fallback(stage, reason, wanted.get(stage, False))

    def _update_providers(self) -> None:
        providers = self._providers_shown = self.core.providers()
        text = ", ".join(p.removesuffix("ExecutionProvider") for p in providers)
        self.provider_label.setText(tr("provider: {names}").format(names=text or tr("none")))
        cpu_only = bool(providers) and all(p.startswith("CPU") for p in providers)
        if not cpu_only:
            tip = ""
        elif nvidia_gpu_present():
            tip = tr("Running on the CPU: no GPU execution provider could be loaded.")
        else:
            tip = tr("Running on the CPU (no NVIDIA GPU found).")
        self.provider_label.setToolTip(tip)
        self.advise_on_providers(providers)
