"""First-launch notice and the synthetic label it offers (drawn on the engine's output)."""

from __future__ import annotations

import time

import numpy as np

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, OutputSettings
from engine.runtime.settings_store import AppState
from engine.stages.label import SyntheticLabel


def test_first_launch_shows_the_notice_without_blocking(qtbot, make_window, wait_ready) -> None:
    window = make_window(state=AppState(), show_notice=True)
    qtbot.waitUntil(lambda: window.notice is not None and window.notice.isVisible())
    # The stream runs behind the notice.
    wait_ready(window)
    assert "consent" in window.notice.findChildren(type(window.source_label))[0].text()
    window.notice.label_box.setChecked(True)
    window.notice.ok_button.click()
    assert not window.notice.isVisible()
    assert window.current_state().notice_accepted
    assert window.core.engine.settings.output.synthetic_label
    # ...and the label is in the output every sink reads.
    t = time.monotonic_ns()
    qtbot.waitUntil(lambda: window.core.engine.output.read()[1].capture_ns > t)
    packet = window.core.engine.output.read()[1]
    h, w = packet.frame.shape[:2]
    corner = (slice(int(h * 0.8), h), slice(int(w * 0.6), w))
    assert np.abs(packet.result[corner].astype(int) - packet.frame[corner]).mean() > 5


def test_accepted_notice_is_not_shown_again(qtbot, make_window) -> None:
    window = make_window(state=AppState(notice_accepted=True), show_notice=True)
    qtbot.wait(50)
    assert window.notice is None


def test_label_stage_draws_only_when_asked() -> None:
    frame = np.full((180, 320, 3), 200, np.uint8)
    frame.flags.writeable = False
    stage = SyntheticLabel()
    off = stage.process(FramePacket(0, 0, frame), EngineSettings())
    assert off.output is None
    settings = EngineSettings(output=OutputSettings(synthetic_label=True))
    on = stage.process(FramePacket(1, 0, frame), settings)
    assert on.output is not None and on.output is not frame
    assert np.array_equal(frame, np.full_like(frame, 200)), "the captured frame was changed"
    changed = np.argwhere((on.output != 200).any(axis=2))
    # Only the bottom-right badge changed, and it holds white text on a dark box.
    assert changed[:, 0].min() > 180 * 0.7 and changed[:, 1].min() > 320 * 0.5
    badge = on.output[changed[:, 0].min() :, changed[:, 1].min() :]
    assert badge.min() < 100 and badge.max() > 240
