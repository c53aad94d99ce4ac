"""`fusecam run` reads the app's saved settings (unless --no-settings), its look flags
override them, and its outputs are guarded like the app's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.cli.main import build_parser, main
from app.cli.run_settings import load_run_settings, with_run_sources
from engine.core.settings import EngineSettings, OutputSettings, SwapSettings
from engine.outputs.guard import card_for
from engine.persist import settings_store
from engine.persist.settings_store import AppState, GalleryEntry
from engine.swap.library import SourceLibrary, content_key
from engine.watermark.embed import Watermarker


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("FUSECAM_CONFIG_DIR", str(folder))
    return folder


def _save(engine: EngineSettings, gallery: tuple[GalleryEntry, ...] | None = None) -> None:
    settings_store.save(AppState(engine=engine, gallery=gallery))


SAVED = EngineSettings(
    swap=SwapSettings(blend=0.4, latent_blend=0.5, face_selection="all"),
    output=OutputSettings(mirror=True, synthetic_label=False, on_face_lost="card"),
)


def _args(*flags: str):  # type: ignore[no-untyped-def]
    return build_parser().parse_args(["run", "--demo", *flags])


def test_run_starts_from_the_apps_saved_settings(config: Path) -> None:
    _save(SAVED)
    settings = load_run_settings(_args()).settings
    assert settings.swap == SAVED.swap
    assert settings.output == SAVED.output


def test_no_settings_ignores_them(config: Path) -> None:
    _save(SAVED)
    assert load_run_settings(_args("--no-settings")).settings == EngineSettings()


def test_look_flags_override_the_saved_settings(config: Path) -> None:
    _save(SAVED)
    flags = ("--label", "--no-mirror", "--strength", "75", "--faces", "main")
    settings = load_run_settings(_args(*flags, "--on-face-lost", "pixelate-face")).settings
    assert settings.output.synthetic_label and not settings.output.mirror
    assert settings.output.on_face_lost == "pixelate-face"
    assert settings.swap.blend == settings.swap.latent_blend == 0.75
    assert settings.swap.face_selection == "main"


def test_each_swappers_blend_has_its_own_flag(config: Path) -> None:
    _save(SAVED)
    settings = load_run_settings(_args("--blend", "20")).settings
    assert (settings.swap.blend, settings.swap.latent_blend) == (0.2, 0.5)
    settings = load_run_settings(_args("--latent-blend", "30")).settings
    assert (settings.swap.blend, settings.swap.latent_blend) == (0.4, 0.3)
    # --strength sets both; a swapper's own flag wins over it.
    settings = load_run_settings(_args("--strength", "60", "--latent-blend", "90")).settings
    assert (settings.swap.blend, settings.swap.latent_blend) == (0.6, 0.9)


def test_a_broken_settings_file_is_reported_not_fatal(config: Path) -> None:
    config.mkdir(parents=True)
    (config / "settings.json").write_text("{not json")
    loaded = load_run_settings(_args())
    assert loaded.settings == EngineSettings() and "could not be read" in loaded.messages[0]


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--strength", "101"),
        ("--strength", "x"),
        ("--blend", "-1"),
        ("--latent-blend", "101"),
        ("--faces", "two"),
        ("--on-face-lost", "hide"),
    ],
)
def test_bad_look_flags_are_one_line_errors(flag: str, value: str, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main(["run", "--demo", flag, value])
    assert exc.value.code == 2
    assert f"argument {flag}" in capsys.readouterr().err


def test_the_saved_active_face_and_mapping_are_used(sample_faces: dict[str, Path]) -> None:
    hopper, collins = sample_faces["grace_hopper"], sample_faces["eileen_collins"]
    gallery = (GalleryEntry((str(hopper),)), GalleryEntry((str(collins),)))
    library = SourceLibrary()
    saved = EngineSettings(swap=SwapSettings(source_key=content_key([collins])))
    settings, notes = with_run_sources(saved, library, (), gallery)
    assert settings.swap.source_key == content_key([collins]) and notes == []
    assert library.get(content_key([collins])) is not None
    mapping = (content_key([collins]), content_key([hopper]))
    mapped = EngineSettings(swap=SwapSettings(face_selection="map", source_keys=mapping))
    settings, _ = with_run_sources(mapped, library, (), gallery)
    assert settings.swap.source_keys == mapping and settings.swap.source_key == mapping[0]
    # A face the app saved whose photo is gone: the sample face instead, no crash.
    gone = (GalleryEntry((str(hopper.with_name("moved.jpg")),)),)
    settings, _ = with_run_sources(saved, library, (), gone)
    assert settings.swap.source_key not in (None, content_key([collins]))


def test_map_mode_maps_each_source_photo_left_to_right(sample_faces: dict[str, Path]) -> None:
    photos = (sample_faces["eileen_collins"], sample_faces["grace_hopper"])
    library = SourceLibrary()
    settings = dataclasses.replace(EngineSettings(), swap=SwapSettings(face_selection="map"))
    settings, _ = with_run_sources(settings, library, photos, ())
    assert settings.swap.source_keys == tuple(content_key([p]) for p in photos)


def _frames(path: Path) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    return frames


def test_a_run_with_saved_swap_off_records_only_the_card(config: Path, tmp_path: Path) -> None:
    """Swap switched off in the app, on_face_lost "card", no hold: every frame the
    recording gets is the card (with the label, on by default)."""
    _save(
        EngineSettings(
            swap=SwapSettings(enabled=False),
            output=OutputSettings(on_face_lost="card", hold_ms=0),
        )
    )
    out = tmp_path / "out.mkv"
    common = ["run", "--demo", "--size", "160x120", "--no-preview", "--frames", "8"]
    assert main([*common, "--record", str(out)]) == 0
    frames = _frames(out)
    card = Watermarker().mark(card_for((160, 120), "no_face"))  # every output is marked
    body = (slice(0, 90), slice(None))  # above the label
    assert frames and all(np.array_equal(f[body], card[body]) for f in frames)
    assert all(f[100:, 80:].max() > 200 for f in frames), "the SYNTHETIC label is missing"
    # --no-settings: the swap is on again, the demo face goes out swapped.
    assert main([*common, "--record", str(out), "--no-settings"]) == 0
    frames = _frames(out)
    assert frames and not any(np.array_equal(f[body], card[body]) for f in frames[-3:])
