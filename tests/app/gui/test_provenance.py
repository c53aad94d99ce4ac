"""Help → "Check a file for the watermark…" and Help → "Activity log…", in real dialogs
and a real window (offscreen); a recording started from the window writes its line."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from app import activity
from app.gui.layout_state import DesktopState, GuiState
from app.gui.widgets.provenance import ActivityLogDialog, WatermarkCheckDialog
from engine.core.imageio import read_image
from engine.core.paths import SAMPLE_FACES_DIR
from engine.watermark.embed import Watermarker

GRACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"


def _check(qtbot, path: Path) -> WatermarkCheckDialog:  # type: ignore[no-untyped-def]
    dialog = WatermarkCheckDialog(path)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.finished_text is not None, timeout=30000)
    return dialog


def test_the_check_dialog_says_marked_clean_too_small_or_unreadable(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    marked = tmp_path / "marked.png"
    cv2.imwrite(str(marked), Watermarker().mark(read_image(GRACE)))
    dialog = _check(qtbot, marked)
    assert dialog.finished_text == "marked"
    assert "made with Fusecam" in dialog.verdict.text()
    assert "Fusecam v1" in dialog.details.toPlainText()
    assert _check(qtbot, GRACE).finished_text == "clean"
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), cv2.resize(read_image(GRACE), (100, 110)))
    assert _check(qtbot, tiny).finished_text == "too_small"
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"no picture here")
    assert _check(qtbot, broken).finished_text == "unreadable"


def test_the_activity_log_dialog_shows_and_clears_the_entries(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "activity.jsonl"
    face = {"hash": "0123456789abcdef", "name": "Grace"}
    activity.record("run", [face], {"stream": True}, [], label=True, path=log)
    activity.record("swap", [face], {"file": True}, [tmp_path / "out.png"], label=False, path=log)
    dialog = ActivityLogDialog(log)
    qtbot.addWidget(dialog)
    text = dialog.entries.toPlainText().splitlines()
    assert len(text) == 2
    assert "run" in text[0] and "Grace (0123456789ab)" in text[0] and "[stream]" in text[0]
    assert str((tmp_path / "out.png").resolve()) in text[1]
    dialog.clear_button.click()
    assert log.read_text() == ""
    assert not dialog.clear_button.isEnabled()
    assert dialog.entries.toPlainText() == "(no entries)"


def test_the_help_menu_offers_both_and_a_recording_is_logged(
    qtbot, make_window, wait_ready, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(
        state=GuiState(desktop=DesktopState(notice_accepted=True), record_dir=str(tmp_path))
    )
    wait_ready(window)
    help_menu = next(a.menu() for a in window.menuBar().actions() if "Help" in a.text())
    texts = [a.text() for a in help_menu.actions()]
    # No shortcut shown beside them (nor beside the other items without one).
    assert "Check a file for the watermark…" in texts and "Activity log…" in texts
    assert "Responsible use" in texts
    log = activity.activity_path()
    before = len(activity.read(log))
    window.commands.toggle_recording()
    recorder = window.outputs.outputs.recorder
    assert recorder is not None
    entries = activity.read(log)
    assert len(entries) == before + 1
    entry = entries[-1]
    assert entry["command"] == "app" and entry["outputs"] == {"record": True}
    assert entry["files"] == [str(recorder.path.resolve())]
    assert json.dumps(entry)  # plain JSON
    qtbot.waitUntil(lambda: recorder.written >= 3, timeout=20000)
    window.commands.toggle_recording()
    qtbot.waitUntil(lambda: recorder.finished or recorder.error is not None, timeout=20000)
