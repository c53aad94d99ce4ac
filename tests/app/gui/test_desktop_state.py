"""The desktop app's language and first-run notice live in its own "desktop" section of
the settings file (format 5); a file written before the move (format 4, by the code of
main at 5f631ad: data/) loads with nothing lost, and the CLI's plain `AppState`, which
reads neither, keeps them when it saves."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction

from app.gui import layout_state
from app.gui.layout_state import DesktopState, GuiState
from engine.persist import settings_store
from engine.persist.settings_store import AppState, SettingsNotSaved

FORMAT_4 = Path(__file__).parent / "data" / "settings_format4.json"
DESKTOP = DesktopState(language="de", notice_accepted=True)


@pytest.fixture
def format_4(tmp_path: Path) -> Path:
    path = tmp_path / "settings.json"
    shutil.copy(FORMAT_4, path)
    return path


def test_a_format_4_file_loads_with_nothing_lost(format_4: Path) -> None:
    loaded = layout_state.load(format_4)
    assert loaded.messages == ()
    state = loaded.state
    assert state.desktop == DESKTOP
    # Every other key the old file held, as it held it (the engine's: only the changed).
    old = json.loads(FORMAT_4.read_text())
    new = settings_store.to_json(state)
    for key, value in new.items():
        if key not in ("engine", "desktop"):
            assert old[key] == value, key
    assert state.engine.swap.blend == old["engine"]["swap"]["blend"]


def test_saving_writes_format_5_with_one_desktop_section(format_4: Path) -> None:
    state = layout_state.load(format_4).state
    settings_store.save(state, format_4)
    saved = json.loads(format_4.read_text())
    assert saved["version"] == settings_store.VERSION == 5
    assert saved["desktop"] == {"language": "de", "notice_accepted": True}
    assert not {"language", "notice_accepted"} & saved.keys()
    again = layout_state.load(format_4)
    assert again.messages == () and again.state == state


def test_the_cli_neither_reads_nor_drops_the_desktop_section(format_4: Path) -> None:
    gui = layout_state.load(format_4).state
    cli = settings_store.load(format_4).state
    assert type(cli) is AppState
    assert not {"language", "notice_accepted", "desktop"} & set(settings_store.to_json(cli))
    assert cli.engine == gui.engine and cli.stream_token == gui.stream_token
    settings_store.save(cli, format_4)  # a front-end without the section saves…
    assert layout_state.load(format_4).state.desktop == DESKTOP  # …and loses none of it
    assert json.loads(format_4.read_text())["desktop"] == settings_store.to_json(DESKTOP)


def test_a_newer_versions_file_is_read_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    data = settings_store.to_json(GuiState(desktop=DESKTOP))
    path.write_text(json.dumps({**data, "version": settings_store.VERSION + 1}))
    before = path.read_bytes()
    loaded = layout_state.load(path)
    assert loaded.state.desktop == DESKTOP
    assert "newer Fusecam" in loaded.messages[0]
    with pytest.raises(SettingsNotSaved):
        settings_store.save(loaded.state, path)
    assert path.read_bytes() == before


def test_keys_already_in_a_desktop_section_are_kept_beside_the_moved_ones(
    format_4: Path,
) -> None:
    data = json.loads(format_4.read_text())
    data["desktop"] = {"theme": "dark"}  # written by something newer than format 4 knew
    format_4.write_text(json.dumps(data))
    state = layout_state.load(format_4).state
    assert state.desktop == DESKTOP
    settings_store.save(state, format_4)
    saved = json.loads(format_4.read_text())["desktop"]
    assert saved == {"theme": "dark", "language": "de", "notice_accepted": True}


def test_the_window_follows_the_old_files_notice_and_language(make_window, format_4: Path) -> None:
    window = make_window(state=layout_state.load(format_4).state, start=False, show_notice=True)
    QCoreApplication.processEvents()  # the notice would open from a zero timer
    assert window.commands.notice is None  # accepted in the old file: not shown again
    checked = [a.text() for a in window.findChildren(QAction) if a.isChecked()]
    assert "Deutsch" in checked  # View → Language
    window.commands.set_language("en")  # …and a new choice is saved in the section
    assert layout_state.load().state.desktop == DesktopState(language="en", notice_accepted=True)
