"""Saved settings: round trip, corrupt files, invalid values, newer formats."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from engine.core.settings import EngineSettings
from engine.persist import settings_store
from engine.persist.settings_store import AppState, GalleryEntry, load, save
from engine.sources.choice import InputChoice


def _custom_state() -> AppState:
    engine = EngineSettings()
    engine = dataclasses.replace(
        engine,
        swap=dataclasses.replace(
            engine.swap,
            blend=0.4,
            latent_blend=0.7,
            face_selection="map",
            source_key="abc",
            source_keys=("abc", "def"),
        ),
        output=dataclasses.replace(engine.output, mirror=True, synthetic_label=False),
    )
    return AppState(
        engine=engine,
        input=InputChoice(kind="camera", device=2, width=640, height=480, fps=15.0),
        gallery=(GalleryEntry(("/faces/a.jpg",)), GalleryEntry(("/faces/b1.jpg", "/b2.png"))),
        record_side_by_side=True,
        record_dir="/videos",
    )


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    state = _custom_state()
    save(state, path)
    loaded = load(path)
    assert loaded.messages == ()
    assert loaded.state == state


def test_default_location_honours_the_env_override(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(settings_store.CONFIG_ENV, str(tmp_path / "cfg"))
    save(AppState(record_side_by_side=True))
    assert (tmp_path / "cfg" / "settings.json").is_file()
    assert load().state.record_side_by_side is True


def test_missing_file_gives_defaults_silently(tmp_path: Path) -> None:
    loaded = load(tmp_path / "nothing.json")
    assert loaded.state == AppState() and loaded.messages == ()


def test_corrupt_file_gives_defaults_and_keeps_the_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"version": 1, "engine": {"swap": ')
    loaded = load(path)
    assert loaded.state == AppState()
    assert len(loaded.messages) == 1 and "could not be read" in loaded.messages[0]
    assert (tmp_path / "settings.json.bad.1").read_text().startswith('{"version"')
    assert not path.exists()


def test_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("[1, 2, 3]")
    loaded = load(path)
    assert loaded.state == AppState() and "JSON object" in loaded.messages[0]


def test_invalid_values_fall_back_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    data = settings_store.to_json(_custom_state())
    data["engine"]["swap"]["blend"] = 7.5  # out of range: blend alone resets
    data["engine"]["output"]["mirror"] = "yes"  # wrong type: this field resets
    data["engine"]["enhancer"]["mode"] = "turbo"  # not a known mode
    data["engine"]["output"]["removed_setting"] = 1  # unknown: ignored silently
    data["version"] = settings_store.VERSION
    path.write_text(json.dumps(data))
    loaded = load(path)
    state = loaded.state
    assert state.engine.swap.blend == EngineSettings().swap.blend
    # Its neighbours in the same section keep what the user chose.
    assert dataclasses.replace(state.engine.swap, blend=0.4) == _custom_state().engine.swap
    assert state.engine.output.mirror is False
    assert state.engine.output.synthetic_label is False  # valid neighbours survive
    assert state.engine.enhancer.mode == "off"
    assert state.input.device == 2 and state.gallery == _custom_state().gallery
    (message,) = loaded.messages
    for fragment in ("engine.swap.blend", "engine.output.mirror", "engine.enhancer.mode"):
        assert fragment in message
    # The file as the user had it is kept beside: the app will save over the original.
    assert json.loads((tmp_path / "settings.json.bad.1").read_text()) == data


def test_newer_format_is_read_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    data = settings_store.to_json(AppState(record_side_by_side=True))
    data["version"] = settings_store.VERSION + 1
    data["future_section"] = {"x": 1}
    path.write_text(json.dumps(data))
    loaded = load(path)
    assert loaded.state.record_side_by_side is True
    assert "newer Fusecam" in loaded.messages[0]


def test_only_changed_engine_settings_are_saved(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    save(_custom_state(), path)
    engine = json.loads(path.read_text())["engine"]
    assert engine == {
        "swap": {
            "blend": 0.4,
            "latent_blend": 0.7,
            "face_selection": "map",
            "source_key": "abc",
            "source_keys": ["abc", "def"],
        },
        "output": {"mirror": True, "synthetic_label": False},
    }


def test_a_file_saved_with_the_removed_poisson_setting_still_loads(tmp_path: Path) -> None:
    """Releases up to 0.1 offered a Poisson compositor (`compositor.poisson`); the setting
    is gone, and a file that still has it loads without a complaint, its other choices kept."""
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "engine": {"compositor": {"poisson": True, "seam_width": 0.35}},
                "record_side_by_side": True,
            }
        )
    )
    loaded = load(path)
    assert loaded.messages == ()
    assert loaded.state.engine.compositor.seam_width == 0.35
    assert loaded.state.record_side_by_side is True


def test_a_format_1_strength_becomes_both_swappers_blend(tmp_path: Path) -> None:
    """Format 1 had one `swap.alpha` for the built-in cross-fade and the neural latent
    mix; a file that set it gives both new settings its value, so either swapper looks
    as it did, and the next save writes format 2 without the old key."""
    path = tmp_path / "settings.json"
    engine = {"swap": {"alpha": 0.55, "shape_alpha": 0.2}, "output": {"mirror": True}}
    path.write_text(json.dumps({"version": 1, "engine": engine}))
    loaded = load(path)
    assert loaded.messages == ()
    swap = loaded.state.engine.swap
    assert (swap.blend, swap.latent_blend, swap.shape_alpha) == (0.55, 0.55, 0.2)
    assert loaded.state.engine.output.mirror is True
    save(loaded.state, path)
    saved = json.loads(path.read_text())
    assert saved["version"] == settings_store.VERSION == 5
    assert saved["engine"]["swap"] == {"blend": 0.55, "latent_blend": 0.55, "shape_alpha": 0.2}


@pytest.mark.parametrize(("follow", "eyes"), [(True, "photo_following"), (False, "yours")])
def test_a_format_2_follow_eyes_becomes_the_eyes_mode(
    tmp_path: Path, follow: bool, eyes: str
) -> None:
    """Format 2 had an on/off `swap.follow_eyes`: on keeps the photo's eyes turned to
    follow you; off (the old default) takes the new default, your own eyes; the next
    save writes format 3 without the old key."""
    path = tmp_path / "settings.json"
    engine = {"swap": {"follow_eyes": follow, "likeness": 0.5}}
    path.write_text(json.dumps({"version": 2, "engine": engine}))
    loaded = load(path)
    assert loaded.messages == ()
    swap = loaded.state.engine.swap
    assert (swap.eyes, swap.likeness) == (eyes, 0.5)
    save(loaded.state, path)
    saved = json.loads(path.read_text())["engine"]["swap"]
    assert "follow_eyes" not in saved
    assert saved.get("eyes", "yours") == eyes


def test_a_format_1_file_without_a_strength_keeps_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "engine": {"swap": {"likeness": 0.5}}}))
    swap = load(path).state.engine.swap
    assert swap == dataclasses.replace(EngineSettings().swap, likeness=0.5)


def test_an_invalid_format_1_strength_resets_both_with_a_message(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "engine": {"swap": {"alpha": 3.0}}}))
    loaded = load(path)
    assert loaded.state.engine.swap == EngineSettings().swap
    (message,) = loaded.messages
    assert "engine.swap.blend" in message and "engine.swap.latent_blend" in message
