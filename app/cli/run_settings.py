"""`fusecam run`'s settings: the desktop app's saved ones, then the command line's flags.

By default `fusecam run` starts from what the app saved (engine settings, the active
face or the left → right mapping), so a stream looks the same from the
command line as from the window; `--no-settings` starts from the defaults. Flags override
either: `--label`, `--mirror`, `--blend`, `--latent-blend` (or `--strength` for both),
`--faces`, `--on-face-lost` and the quality and pipeline flags (app/cli/options.py).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.cli.options import float_in
from engine.core.settings import FACE_LOST_ACTIONS, EngineSettings
from engine.persist import settings_store
from engine.persist.settings_store import AppState, GalleryEntry
from engine.runtime.factory import with_sources
from engine.swap.library import SourceFaceError, SourceLibrary, content_key

strength = float_in(0.0, 100.0, "a strength in 0..100 (%)")


def add_run_settings_options(run: argparse.ArgumentParser) -> None:
    group = run.add_argument_group(
        "look", "start from the desktop app's saved settings; these flags override them"
    )
    group.add_argument(
        "--no-settings",
        action="store_true",
        help="ignore the app's saved settings (use the defaults and these flags)",
    )
    group.add_argument(
        "--label",
        action=argparse.BooleanOptionalAction,
        help='draw the "SYNTHETIC" label on every output (default: on)',
    )
    group.add_argument(
        "--mirror", action=argparse.BooleanOptionalAction, help="mirror the input left-right"
    )
    group.add_argument(
        "--blend",
        type=strength,
        metavar="PCT",
        help="built-in swapper: how much of the new face replaces yours (and how far the "
        "face shape moves), 0..100 %% (the app's Blend)",
    )
    group.add_argument(
        "--latent-blend",
        type=strength,
        metavar="PCT",
        help="neural swapper: how much of the source's identity the model is given, mixed "
        "with yours, 0..100 %% (the app's Identity mix)",
    )
    group.add_argument(
        "--strength",
        type=strength,
        metavar="PCT",
        help="both --blend and --latent-blend (what one strength setting did before); "
        "either flag overrides it for its swapper",
    )
    group.add_argument(
        "--faces",
        choices=("main", "all", "map"),
        help="swap the main face, all faces, or map: each --source photo onto the "
        "faces from left to right",
    )
    group.add_argument(
        "--on-face-lost",
        choices=FACE_LOST_ACTIONS,
        help="what the outputs show when the swap misses (after holding the last swapped "
        "frame briefly): blur (default), pixelate, blur-face, pixelate-face, card, or "
        "off (send the camera image: no guard)",
    )


@dataclass(frozen=True, slots=True)
class RunSettings:
    settings: EngineSettings
    gallery: tuple[GalleryEntry, ...]  # the app's saved faces (to find the active one)
    messages: tuple[str, ...]  # problems with the saved file, for the user


def load_run_settings(args: argparse.Namespace) -> RunSettings:
    """The saved state (unless --no-settings) with the look flags applied."""
    loaded = settings_store.LoadResult(AppState()) if args.no_settings else settings_store.load()
    state, messages = loaded.state, loaded.messages
    settings = with_look_options(args, state.engine)
    return RunSettings(settings, state.gallery or (), messages)


def with_look_options(args: argparse.Namespace, settings: EngineSettings) -> EngineSettings:
    output, swap = settings.output, settings.swap
    if args.label is not None:
        output = dataclasses.replace(output, synthetic_label=args.label)
    if args.mirror is not None:
        output = dataclasses.replace(output, mirror=args.mirror)
    if args.on_face_lost is not None:
        output = dataclasses.replace(output, on_face_lost=args.on_face_lost)
    if args.strength is not None:
        swap = dataclasses.replace(
            swap, blend=args.strength / 100.0, latent_blend=args.strength / 100.0
        )
    if args.blend is not None:
        swap = dataclasses.replace(swap, blend=args.blend / 100.0)
    if args.latent_blend is not None:
        swap = dataclasses.replace(swap, latent_blend=args.latent_blend / 100.0)
    if args.faces is not None:
        swap = dataclasses.replace(swap, face_selection=args.faces)
    return dataclasses.replace(settings, output=output, swap=swap)


def with_run_sources(
    settings: EngineSettings,
    library: SourceLibrary,
    photos: Sequence[Path],
    gallery: Sequence[GalleryEntry],
) -> tuple[EngineSettings, list[str]]:
    """Load the faces to swap and make them active: the `--source` photos (one person;
    in map mode one face each, left to right), else the app's saved active face or
    mapping, else the bundled sample face. Also returns what could not be used."""
    swap = settings.swap
    if photos and swap.face_selection == "map":
        keys = tuple(library.load_identity([p]).key for p in photos)
        return _with_keys(settings, keys[0], keys), []
    if photos:
        return with_sources(settings, library, photos), []
    messages: list[str] = []
    wanted = {k for k in (swap.source_key, *swap.source_keys) if k}
    saved = _saved_faces(gallery) if wanted else {}
    loaded = {k: _load(library, saved[k], messages) for k in wanted if k in saved}
    keys = tuple(key for k in swap.source_keys if (key := loaded.get(k)))
    key = loaded.get(swap.source_key or "") or next(iter(keys), None)
    if key is None:
        settings = with_sources(settings, library)  # the bundled sample face
        key = settings.swap.source_key
        assert key is not None
    if swap.face_selection == "map" and not keys:
        keys = (key,)  # map mode with nothing mapped would swap nothing
    return _with_keys(settings, key, keys), messages


def _saved_faces(gallery: Sequence[GalleryEntry]) -> dict[str, tuple[Path, ...]]:
    """The app's gallery faces by key (the photos' content hash, as the app keys them)."""
    found: dict[str, tuple[Path, ...]] = {}
    for entry in gallery:
        paths = tuple(Path(p) for p in entry.paths)
        try:
            found[content_key(paths)] = paths
        except OSError:
            continue  # moved or deleted since the app saw it: that face is not there
    return found


def _load(library: SourceLibrary, paths: Sequence[Path], messages: list[str]) -> str | None:
    try:
        return library.load_identity(paths).key
    except SourceFaceError as exc:
        messages.append(f"saved face not used: {exc}")
        return None


def _with_keys(settings: EngineSettings, key: str, keys: tuple[str, ...]) -> EngineSettings:
    swap = dataclasses.replace(settings.swap, source_key=key, source_keys=keys)
    return dataclasses.replace(settings, swap=swap)
