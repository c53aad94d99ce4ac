"""The window's layout lives in the GUI's own section of the settings file (format 4);
a file written before the move (format 3, by the code of main at 3fd0cce: data/) loads
with nothing lost, and the CLI's plain `AppState` neither sees nor drops it."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from app.gui import layout_state
from app.gui.layout_state import DesktopState, GuiState, LayoutState
from engine.persist import settings_store
from engine.persist.settings_store import AppState, SettingsNotSaved

FORMAT_3 = Path(__file__).parent / "data" / "settings_format3.json"
LAYOUT = LayoutState(
    geometry="AdnQywADAAAAAAAAAAAAAAAAB38AAAQ3",
    show_hud=False,
    hud_corner="bottom-right",
    hud_size="compact",
    gallery_height=212,
    controls_visible=False,
)


@pytest.fixture
def format_3(tmp_path: Path) -> Path:
    path = tmp_path / "settings.json"
    shutil.copy(FORMAT_3, path)
    return path


def test_a_format_3_file_loads_with_nothing_lost(format_3: Path) -> None:
    loaded = layout_state.load(format_3)
    assert loaded.messages == ()
    state = loaded.state
    assert state.layout == LAYOUT
    # Every other key the old file held, as it held it.
    assert (state.engine.swap.blend, state.input.path, state.gallery) == (
        0.6,
        "/v.mp4",
        (settings_store.GalleryEntry(("/a.jpg",)),),
    )
    old = json.loads(FORMAT_3.read_text())
    assert state.desktop == DesktopState(language="de", notice_accepted=True)
    sections = ("layout", "desktop")
    rest = {k: v for k, v in settings_store.to_json(state).items() if k not in sections}
    for key, value in rest.items():
        if key != "engine":
            assert old[key] == value, key


def test_saving_writes_the_current_format_with_one_layout_section(format_3: Path) -> None:
    state = layout_state.load(format_3).state
    settings_store.save(state, format_3)
    saved = json.loads(format_3.read_text())
    assert saved["version"] == settings_store.VERSION
    assert saved["layout"]["geometry"] == LAYOUT.geometry
    assert not {"window_geometry", "show_hud", "hud_corner", "gallery_height"} & saved.keys()
    again = layout_state.load(format_3)
    assert again.messages == () and again.state == state


def test_the_cli_reads_the_same_file_and_keeps_the_layout(format_3: Path) -> None:
    gui = layout_state.load(format_3).state
    cli = settings_store.load(format_3).state
    assert type(cli) is AppState and not hasattr(cli, "layout")
    assert cli.engine == gui.engine and cli.stream_token == gui.stream_token
    settings_store.save(cli, format_3)  # a front-end without the layout saves…
    assert layout_state.load(format_3).state.layout == LAYOUT  # …and loses none of it


def test_a_newer_versions_file_is_read_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    data = settings_store.to_json(GuiState(layout=LAYOUT))
    path.write_text(json.dumps({**data, "version": settings_store.VERSION + 1}))
    before = path.read_bytes()
    loaded = layout_state.load(path)
    assert loaded.state.layout == LAYOUT
    assert "newer Fusecam" in loaded.messages[0]
    with pytest.raises(SettingsNotSaved):
        settings_store.save(loaded.state, path)
    assert path.read_bytes() == before


def test_an_invalid_layout_value_resets_alone_with_a_message(format_3: Path) -> None:
    data = json.loads(format_3.read_text())
    data["gallery_height"] = -5
    format_3.write_text(json.dumps(data))
    loaded = layout_state.load(format_3)
    assert loaded.state.layout == dataclasses.replace(LAYOUT, gallery_height=0)
    assert "layout.gallery_height" in loaded.messages[0]
    assert settings_store.backup_path(format_3, 1).is_file()


def test_the_window_opens_with_the_old_files_layout(make_window, format_3: Path) -> None:
    window = make_window(state=layout_state.load(format_3).state, start=False)
    assert (window.hud.corner, window.hud.size_mode) == ("bottom-right", "compact")
    assert not window.hud.isVisible() and not window.dock.isVisible()
    assert window.ui.gallery_height == 212
    assert window.keeper.current_state().layout.hud_corner == "bottom-right"
