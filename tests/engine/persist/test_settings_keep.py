"""Saved settings lose nothing: keys this version does not know survive a save, a newer
version's file is not overwritten, replaced files are kept for several generations, and
the file (it may hold the stream token) is the owner's alone."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from engine.persist import settings_store
from engine.persist.settings_store import AppState, SettingsNotSaved, load, save


def _file(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(data))
    return path


def test_unknown_keys_survive_a_save_at_every_level(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        {
            "version": 1,
            "record_side_by_side": True,
            "plugin_panel": {"open": True, "width": 300},
            "engine": {"swap": {"alpha": 0.4, "future_knob": 7}, "future_stage": {"on": 1}},
            "input": {"kind": "camera", "device": 1, "hdr": "auto"},
        },
    )
    loaded = load(path)
    assert loaded.messages == ()
    assert loaded.state.engine.swap.blend == pytest.approx(0.4)  # a format-1 key, migrated
    save(
        AppState(record_side_by_side=False, input=loaded.state.input), path
    )  # blend back to default
    saved = json.loads(path.read_text())
    assert saved["record_side_by_side"] is False
    assert saved["plugin_panel"] == {"open": True, "width": 300}
    assert saved["engine"] == {"swap": {"future_knob": 7}, "future_stage": {"on": 1}}
    assert saved["input"]["hdr"] == "auto" and saved["input"]["device"] == 1
    default_blend = AppState().engine.swap.blend
    assert load(path).state.engine.swap.blend == pytest.approx(default_blend)  # saved


def test_a_newer_versions_file_is_not_overwritten(tmp_path: Path) -> None:
    data = {**settings_store.to_json(AppState()), "version": 99, "new_thing": [1, 2]}
    path = _file(tmp_path, data)
    before = path.read_bytes()
    loaded = load(path)
    assert "newer Fusecam (format 99)" in loaded.messages[0]
    assert "left as it is" in loaded.messages[0]
    with pytest.raises(SettingsNotSaved, match=r"format 99.*not saved"):
        save(loaded.state, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_every_replaced_file_is_kept_for_five_generations(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    for attempt in range(7):
        path.write_text(f"{{broken {attempt}")
        assert "could not be read" in load(path).messages[0]
    kept = {p.name: p.read_text() for p in tmp_path.iterdir()}
    # The newest is .bad.1; the two oldest (0 and 1) are gone.
    assert kept == {f"settings.json.bad.{n}": f"{{broken {6 - n + 1}" for n in range(1, 6)}
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in tmp_path.iterdir())


def test_a_file_unreadable_at_save_time_is_backed_up_before_it_is_replaced(
    tmp_path: Path,
) -> None:
    path = tmp_path / "settings.json"
    save(AppState(), path)
    path.write_text("{not json")  # damaged while the app ran
    save(AppState(record_side_by_side=True), path)
    assert (tmp_path / "settings.json.bad.1").read_text() == "{not json"
    assert load(path).state.record_side_by_side is True


def test_the_settings_file_is_the_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0o644)
    save(AppState(stream_lan=True, stream_token="s3cret-token"), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load(path).state.stream_token == "s3cret-token"
