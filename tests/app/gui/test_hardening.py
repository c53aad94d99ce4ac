"""The window starts from settings files that used to crash it at every launch, and its
recordings never overwrite a file or land outside the test's own folders (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.gui import layout_state
from app.gui.controllers.outputs import default_record_dir, recording_path
from engine.persist import settings_store

CRASHED_THE_APP = {
    "port out of range": '{"version": 1, "notice_accepted": true, "stream_port": 99999999999}',
    "empty gallery entry": '{"version": 1, "notice_accepted": true, "gallery": [{"paths": []}]}',
    "deeply nested": '{"version": 1, "gallery": ' + "[" * 50_000 + "]" * 50_000 + "}",
    "input of 1e9 x 1e9": '{"version": 1, "notice_accepted": true, "input": {"kind": "demo", '
    '"width": 1000000000, "height": 1000000000}}',
}


@pytest.mark.parametrize("text", CRASHED_THE_APP.values(), ids=CRASHED_THE_APP.keys())
def test_the_window_starts_from_a_settings_file_that_crashed_it(
    text: str, tmp_path: Path, make_window, wait_ready, qtbot
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    loaded = layout_state.load(path)
    window = make_window(state=loaded.state, startup_messages=loaded.messages)
    wait_ready(window)  # frames arrive: the engine, the input and the outputs run
    shown = " ".join(window.messages.texts())
    assert "reset to defaults" in shown or "could not be read" in shown, shown
    assert window.outputs.stream_port == settings_store.AppState().stream_port


def test_recordings_default_to_the_test_sessions_own_videos_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The issue's case: the suite wrote a recording into the real ~/Videos/Fusecam."""
    assert default_record_dir().is_relative_to(tmp_path_factory.getbasetemp())


def test_a_new_recording_never_takes_an_existing_name(tmp_path: Path) -> None:
    first = recording_path(tmp_path)
    first.write_bytes(b"an earlier recording, same second")
    second = recording_path(tmp_path)
    assert second != first and second.parent == tmp_path and not second.exists()
