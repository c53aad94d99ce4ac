"""FaceSelection on its own: a settings holder and a list of loaded keys stand in for
the engine and the gallery, so each rule shows in the settings it applies."""

from __future__ import annotations

import dataclasses
from typing import Any

from app.gui.controllers.face_selection import FaceSelection
from engine.core.settings import EngineSettings


class Engine:
    """Holds the settings FaceSelection applies and counts the applies."""

    def __init__(self, **swap: Any) -> None:
        base = EngineSettings()
        self.settings = dataclasses.replace(base, swap=dataclasses.replace(base.swap, **swap))
        self.applies = 0

    def apply(self, settings: EngineSettings) -> None:
        self.settings = settings
        self.applies += 1


def selection(engine: Engine, loaded: list[str] | None = None, **saved_swap: Any) -> FaceSelection:
    base = EngineSettings()
    saved = dataclasses.replace(base, swap=dataclasses.replace(base.swap, **saved_swap))
    keys = loaded if loaded is not None else []
    return FaceSelection(lambda: engine.settings, engine.apply, lambda: keys, saved)


def test_without_faces_clears_only_the_face_keys() -> None:
    base = EngineSettings()
    swap = dataclasses.replace(base.swap, source_key="a", source_keys=("a", "b"), blend=0.4)
    started = FaceSelection.without_faces(dataclasses.replace(base, swap=swap)).swap
    assert (started.source_key, started.source_keys) == (None, ())
    assert started.blend == 0.4


def test_activate_in_main_mode_sets_the_face_and_switches_the_swap_on() -> None:
    engine = Engine(enabled=False, source_key="old")
    faces = selection(engine, source_key="saved")
    faces.activate("new")
    swap = engine.settings.swap
    assert (swap.source_key, swap.enabled, swap.source_keys) == ("new", True, ())
    assert faces.pending_key is None  # the user's pick overrides the saved face


def test_activate_in_map_mode_replaces_the_mapping_without_ctrl() -> None:
    engine = Engine(face_selection="map", source_key="a", source_keys=("a", "b"))
    selection(engine).activate("c")
    assert (engine.settings.swap.source_keys, engine.settings.swap.source_key) == (("c",), "c")


def test_ctrl_activate_in_map_mode_toggles_a_face_in_the_mapping() -> None:
    engine = Engine(face_selection="map", source_key="a", source_keys=("a", "b"))
    faces = selection(engine)
    faces.activate("c", add_to_mapping=True)
    assert engine.settings.swap.source_keys == ("a", "b", "c")
    faces.activate("a", add_to_mapping=True)
    assert (engine.settings.swap.source_keys, engine.settings.swap.source_key) == (("b", "c"), "b")


def test_ctrl_activate_dropping_the_last_mapped_face_leaves_no_active_face() -> None:
    engine = Engine(face_selection="map", source_key="a", source_keys=("a",))
    selection(engine).activate("a", add_to_mapping=True)
    assert (engine.settings.swap.source_keys, engine.settings.swap.source_key) == ((), None)


def test_ctrl_outside_map_mode_just_activates() -> None:
    engine = Engine(source_key="a")
    selection(engine).activate("b", add_to_mapping=True)
    assert (engine.settings.swap.source_key, engine.settings.swap.source_keys) == ("b", ())


def test_start_mapping_maps_the_face_in_use() -> None:
    engine = Engine(face_selection="map", source_key="a")
    assert selection(engine).start_mapping() is True
    assert engine.settings.swap.source_keys == ("a",)


def test_start_mapping_changes_nothing_with_a_mapping_or_without_a_face() -> None:
    mapped = Engine(face_selection="map", source_key="a", source_keys=("b",))
    empty = Engine(face_selection="map")
    assert selection(mapped).start_mapping() is False
    assert selection(empty).start_mapping() is False
    assert (mapped.applies, empty.applies) == (0, 0)
    assert mapped.settings.swap.source_keys == ("b",)


def test_the_saved_face_becomes_active_only_once_it_has_loaded() -> None:
    engine = Engine()
    faces = selection(engine, source_key="saved")
    faces.on_loaded("other")
    assert engine.settings.swap.source_key is None
    faces.on_loaded("saved")
    assert engine.settings.swap.source_key == "saved"
    assert faces.pending_key is None


def test_with_nothing_saved_the_first_face_to_load_becomes_active() -> None:
    engine = Engine()
    faces = selection(engine)
    faces.on_loaded("first")
    faces.on_loaded("second")
    assert engine.settings.swap.source_key == "first"


def test_a_saved_mapping_keeps_its_order_as_its_faces_load() -> None:
    engine = Engine(face_selection="map")
    loaded: list[str] = []
    faces = selection(engine, loaded, source_keys=("a", "b", "c"))
    for key in ("c", "a"):
        loaded.append(key)
        faces.on_loaded(key)
    assert engine.settings.swap.source_keys == ("a", "c")
    loaded.append("b")
    faces.on_loaded("b")
    assert engine.settings.swap.source_keys == ("a", "b", "c")


def test_removing_the_active_face_drops_it_from_the_swap_and_the_mapping() -> None:
    engine = Engine(face_selection="map", source_key="a", source_keys=("a", "b"))
    selection(engine).on_removed("a")
    assert (engine.settings.swap.source_key, engine.settings.swap.source_keys) == (None, ("b",))


def test_removing_another_face_keeps_the_active_one() -> None:
    engine = Engine(face_selection="map", source_key="a", source_keys=("a", "b"))
    selection(engine).on_removed("b")
    assert (engine.settings.swap.source_key, engine.settings.swap.source_keys) == ("a", ("a",))


def test_for_saving_keeps_a_saved_face_that_has_not_loaded() -> None:
    engine = Engine()
    faces = selection(engine, source_key="saved", source_keys=("saved", "x"))
    kept = faces.for_saving(engine.settings).swap
    assert (kept.source_key, kept.source_keys) == ("saved", ("saved", "x"))


def test_for_saving_prefers_what_is_in_use_and_forgets_after_a_choice() -> None:
    engine = Engine(source_key="live", source_keys=("live",))
    faces = selection(engine, source_key="saved", source_keys=("saved",))
    in_use = faces.for_saving(engine.settings).swap
    assert (in_use.source_key, in_use.source_keys) == ("live", ("live",))
    faces.forget_saved()
    cleared = faces.for_saving(EngineSettings()).swap
    assert (cleared.source_key, cleared.source_keys) == (None, ())
