"""HUD numbers from real engine stats; the enhancer cost meter's arithmetic; advice."""

from __future__ import annotations

import numpy as np

from app.gui.controllers.enhancer_cost import EnhancerCostMeter
from app.gui.widgets.hud import CARD_W, PAD, PALETTE, HudData, HudOverlay
from app.gui.widgets.messages import advice_for
from engine.core.packet import FramePacket
from engine.core.stats import FrameStats


def test_hud_shows_fps_latency_stages_and_provider(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    # The provider shows once the face models loaded in the background: wait for it
    # with the stages, never read it before (the test's old race), never sleep.
    qtbot.waitUntil(
        lambda: (
            window.hud.data.fps > 0
            and "faces" in {s.name for s in window.hud.data.stages}
            and "CPU" in window.hud.data.lines()[1]
        ),
        timeout=20000,
    )
    data = window.hud.data
    snap = window.core.engine.stats.snapshot()
    # Stages that ran, and those the newest frame skipped (named with the reason).
    assert set(s.name for s in data.stages) <= set(snap.stages) | set(snap.last_skipped)
    line = data.lines()[0]
    assert "fps" in line and "p50" in line and "p95" in line
    assert window.hud.isVisible()
    window.commands.toggle_hud()
    assert not window.hud.isVisible() and not window.commands.hud_action.isChecked()


def test_a_stage_that_did_not_run_reads_as_skipped_not_zero(qtbot) -> None:
    stats = FrameStats()
    frame = np.zeros((8, 8, 3), np.uint8)
    for frame_id in range(4):
        packet = FramePacket(frame_id, 0, frame, published_ns=1)
        packet.timings_ms["faces"] = 4.0
        packet.skip("enhancer", "off")
        if frame_id == 0:
            packet.timings_ms["hands"] = 9.0
        else:
            packet.skip("hands", "no face")
        stats.record(packet, 13.0)
    data = HudData.from_snapshot(stats.snapshot(), (), order=("faces", "enhancer", "hands"))
    texts = [stage.text() for stage in data.stages]
    assert texts == ["faces 4.0 ms", "enhancer off", "hands no face"]
    hud = HudOverlay()
    qtbot.addWidget(hud)
    hud.set_data(data)
    # The time bar: the face stage's colour (the first) fills its share; the skipped
    # enhancer and hands take no room, though their legend squares are still drawn.
    image = hud.grab().toImage()
    bar_y = PAD + 12 + 16 * len(data.lines()) + 4 + 5
    bar = {image.pixelColor(x, bar_y).name() for x in range(PAD, CARD_W - PAD)}
    assert PALETTE[0] in bar and PALETTE[1] not in bar and PALETTE[2] not in bar


def test_hud_data_from_numbers() -> None:
    data = HudData(
        fps=29.96, latency_p50_ms=31.2, latency_p95_ms=44.9, providers=("CUDAExecutionProvider",)
    )
    assert data.lines()[0].startswith("30.0 fps")
    assert "p50  31 ms" in data.lines()[0] and "p95  45 ms" in data.lines()[0]
    assert "provider CUDA" in data.lines()[1]


def _feed(
    meter: EnhancerCostMeter, start: float, end: float, fps: float, stage_ms: float | None
) -> None:
    """Frames at `fps` from `start` to `end`; the enhancer takes `stage_ms` ±10 % on each
    (None: it did not run)."""
    rng = np.random.default_rng(int(start * 10))
    for t in np.arange(start, end, 1.0 / fps):
        ms = None if stage_ms is None else stage_ms * rng.uniform(0.9, 1.1)
        meter.record(float(t), ms)


def test_enhancer_cost_is_its_own_time_and_the_fps_change() -> None:
    meter = EnhancerCostMeter(settle_s=0.5, window_s=2.0)
    _feed(meter, 0.0, 3.0, 28.0, None)
    meter.toggled(3.0, "off", "builtin")
    assert meter.measuring
    _feed(meter, 3.0, 5.6, 20.0, 9.5)
    assert meter.tick(5.4) is None  # the window after the toggle is not over yet
    cost = meter.tick(5.6)
    assert cost is not None and cost.mode == "builtin"
    assert cost.stage_ms is not None and abs(cost.stage_ms.mid - 9.5) < 0.5
    assert 8.5 < cost.stage_ms.low <= cost.stage_ms.mid <= cost.stage_ms.high < 10.5
    assert cost.fps_changed and abs(cost.fps_delta - (-8.0)) < 1.0
    assert cost.text().startswith("builtin: 9.") and "28 → 20 fps" in cost.text()
    # Turning it off again measures the same cost from the other side.
    meter.toggled(5.6, "builtin", "off")
    _feed(meter, 5.6, 8.2, 28.0, None)
    again = meter.tick(8.2)
    assert again is not None and again.stage_ms is not None
    assert abs(again.fps_delta - (-8.0)) < 1.0 and abs(again.stage_ms.mid - 9.5) < 0.5


def test_a_camera_capped_rate_is_reported_unchanged_not_faster() -> None:
    """The screenshot's "+0.9 fps, +0.0 ms/frame": the camera caps the rate at 30 fps
    either way; the cost is the enhancer's own time, and the rate reads as unchanged."""
    meter = EnhancerCostMeter(settle_s=0.5, window_s=2.0)
    _feed(meter, 0.0, 3.0, 30.0, None)
    meter.toggled(3.0, "off", "builtin")
    _feed(meter, 3.0, 5.6, 30.0, 4.0)
    cost = meter.tick(5.6)
    assert cost is not None and not cost.fps_changed
    assert "frame rate unchanged" in cost.text() and "+" not in cost.text()
    assert cost.stage_ms is not None and abs(cost.stage_ms.mid - 4.0) < 0.3


def test_enhancer_cost_waits_for_enough_samples() -> None:
    meter = EnhancerCostMeter()
    meter.toggled(0.0, "off", "builtin")  # no history: nothing to compare against
    assert not meter.measuring
    assert meter.tick(10.0) is None
    _feed(meter, 0.0, 3.0, 30.0, None)
    meter.toggled(3.0, "builtin", "neural")  # mode to mode: neither side is "without"
    assert not meter.measuring


def test_advice_for_common_errors() -> None:
    assert "Close other apps" in (
        advice_for("source-camera", "camera 0: cannot open (not connected, or busy in another app)")
        or ""
    )
    assert "reconnects" in (advice_for("source-camera", "camera 0 lost; retrying") or "")
    assert advice_for("engine", "something new") is None


def test_enhancer_toggle_shows_what_it_costs(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    qtbot.wait(2300)  # a rate "before" needs a couple of seconds of history
    window.commands.toggle_enhancer()
    assert window.core.engine.settings.enhancer.mode == "builtin"
    assert "measuring" in window.controls.enhancer_cost.text()
    qtbot.waitUntil(lambda: "fps" in window.controls.enhancer_cost.text(), timeout=10000)
    assert window.controls.enhancer_cost.text().startswith("cost — builtin:")
    window.commands.toggle_enhancer()
    assert window.core.engine.settings.enhancer.mode == "off"
