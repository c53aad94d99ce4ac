"""First-launch notice and the synthetic label it offers (drawn on every output)."""

from __future__ import annotations

import numpy as np

from app.gui.layout_state import DesktopState, GuiState
from engine.outputs.label import draw_label


def test_first_launch_shows_the_notice_without_blocking(qtbot, make_window, wait_ready) -> None:
    window = make_window(state=GuiState(), show_notice=True)
    qtbot.waitUntil(
        lambda: window.commands.notice is not None and window.commands.notice.isVisible()
    )
    # The stream runs behind the notice.
    wait_ready(window)
    assert "consent" in window.commands.notice.findChildren(type(window.source_label))[0].text()
    # On by default, and the notice says how to turn it off.
    assert window.commands.notice.label_box.isChecked()
    text = " ".join(
        label.text() for label in window.commands.notice.findChildren(type(window.source_label))
    )
    assert "on by default" in text and "Outputs" in text
    window.commands.notice.label_box.setChecked(False)
    window.commands.notice.ok_button.click()
    assert not window.commands.notice.isVisible()
    assert window.keeper.current_state().desktop.notice_accepted
    assert not window.core.engine.settings.output.synthetic_label


def test_accepted_notice_is_not_shown_again(qtbot, make_window) -> None:
    window = make_window(
        state=GuiState(desktop=DesktopState(notice_accepted=True)), show_notice=True
    )
    qtbot.wait(50)
    assert window.commands.notice is None


def test_the_label_changes_only_its_corner() -> None:
    frame = np.full((180, 320, 3), 200, np.uint8)
    labelled = frame.copy()
    draw_label(labelled)
    changed = np.argwhere((labelled != 200).any(axis=2))
    # Only the bottom-right badge changed, and it holds white text on a dark box.
    assert changed[:, 0].min() > 180 * 0.7 and changed[:, 1].min() > 320 * 0.5
    badge = labelled[changed[:, 0].min() :, changed[:, 1].min() :]
    assert badge.min() < 100 and badge.max() > 240
