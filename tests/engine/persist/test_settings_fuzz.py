"""Settings files that used to crash the app at every launch, and a fuzz test that hunts
for more: loading must never raise, and what it returns must be valid and stable."""

from __future__ import annotations

import dataclasses
import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.dataclass_json import to_json
from engine.persist import settings_store
from engine.persist.settings_store import AppState, GalleryEntry, SettingsNotSaved, load, save
from engine.sources.choice import InputChoice

ISSUE_FILES = {
    "port out of range": '{"version": 1, "stream_port": 99999999999}',
    "empty gallery entry": '{"version": 1, "gallery": [{"paths": []}]}',
    "nested deeper than the parser": '{"version": 1, "gallery": '
    + "[" * 100_000
    + "]" * 100_000
    + "}",
    "input of 1e9 x 1e9": '{"version": 1, "input": {"kind": "demo", "width": 1000000000, '
    '"height": 1000000000}}',
    "huge integer": '{"version": 1, "output_delay_ms": ' + "9" * 5000 + "}",
    "NaN and infinity": '{"version": 1, "engine": {"tracking": {"beta": NaN, "min_cutoff_hz": '
    "Infinity}}}",
    "NUL in a path": '{"version": 1, "record_dir": "/tmp/a\\u0000b"}',
}


def _assert_valid(state: AppState) -> None:
    """Every dataclass in the tree passes its own checks again (nothing slipped by)."""

    def check(value: Any) -> None:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            dataclasses.replace(value)  # re-runs __post_init__
            for f in dataclasses.fields(value):
                check(getattr(value, f.name))
        elif isinstance(value, tuple):
            for item in value:
                check(item)

    check(state)


@pytest.mark.parametrize("text", ISSUE_FILES.values(), ids=ISSUE_FILES.keys())
def test_files_that_crashed_the_app_load_with_a_message(tmp_path: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    loaded = load(path)
    assert len(loaded.messages) == 1, loaded.messages
    _assert_valid(loaded.state)
    assert (tmp_path / "settings.json.bad.1").read_text() == text  # the user's file is kept


def test_one_bad_gallery_entry_costs_only_itself(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {"version": 1, "gallery": [{"paths": ["/a.jpg"]}, {"paths": []}, {"paths": ["/b.jpg"]}]}
        )
    )
    loaded = load(path)
    assert loaded.state.gallery == (GalleryEntry(("/a.jpg",)), GalleryEntry(("/b.jpg",)))
    assert "gallery[1]" in loaded.messages[0]


def test_a_field_refused_only_together_with_another_resets_its_section(tmp_path: Path) -> None:
    """Each side is fine with the other's default; together they are 64 megapixels."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "input": {"width": 8000, "height": 8000}}))
    loaded = load(path)
    assert loaded.state.input == InputChoice()
    assert "megapixels" in loaded.messages[0]


# --- fuzzing --------------------------------------------------------------------------

_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=string.printable + "\x00é", max_size=12)
)
json_values = st.recursive(
    _json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def _leaf_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        paths = [prefix] if prefix else []
        for key, item in value.items():
            paths += _leaf_paths(item, (*prefix, key))
        return paths
    if isinstance(value, list):
        paths = [prefix]
        for index, item in enumerate(value):
            paths += _leaf_paths(item, (*prefix, index))
        return paths
    return [prefix]


def _full_state() -> dict[str, Any]:
    """Every field present: the fuzzer then mutates real settings, not only unknown keys."""
    state = AppState(
        input=InputChoice(kind="file", path="/v.mp4"),
        gallery=(GalleryEntry(("/a.jpg", "/b.jpg")),),
        record_dir="/videos",
        vcam_device="/dev/video9",
    )
    return {"version": 1, **to_json(state)}


@st.composite
def mutated_settings(draw: st.DrawFn) -> Any:
    """A valid full settings object with a few values (or whole sections) replaced."""
    data = _full_state()
    paths = _leaf_paths(data)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        path = draw(st.sampled_from(paths))
        if not path:
            continue
        parent = data
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = draw(json_values)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced a container on the way
    return data


def _load_text(tmp_path: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    loaded = load(path)  # the property: never raises…
    _assert_valid(loaded.state)  # …returns a valid state…
    if path.is_file() and _newer(path):  # …leaves a newer version's file as it is…
        before = path.read_bytes()
        with pytest.raises(SettingsNotSaved):
            save(loaded.state, path)
        assert path.read_bytes() == before
        return
    save(loaded.state, path)  # …and otherwise saves and loads back unchanged, quietly
    again = load(path)
    assert again.state == loaded.state and again.messages == ()


def _newer(path: Path) -> bool:
    version = json.loads(path.read_text(encoding="utf-8")).get("version", 1)
    return isinstance(version, int) and version > settings_store.VERSION


_FUZZ = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_FUZZ
@given(data=mutated_settings())
def test_fuzz_mutated_settings(tmp_path: Path, data: Any) -> None:
    _load_text(tmp_path, json.dumps(data, allow_nan=True))


@_FUZZ
@given(data=json_values)
def test_fuzz_any_json(tmp_path: Path, data: Any) -> None:
    _load_text(tmp_path, json.dumps(data, allow_nan=True))


@_FUZZ
@given(blob=st.binary(max_size=200))
def test_fuzz_any_bytes(tmp_path: Path, blob: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(blob)
    _assert_valid(load(path).state)


def test_the_fuzz_baseline_loads_without_a_message(tmp_path: Path) -> None:
    """Mutations start from a file that is valid as it is."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(_full_state()))
    loaded = load(path)
    assert loaded.messages == () and loaded.state.gallery == (GalleryEntry(("/a.jpg", "/b.jpg")),)
