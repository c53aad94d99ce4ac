"""Builds the stage list the engine runs, and loads the chosen source faces."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from engine.core.paths import DEFAULT_SOURCE_FACE
from engine.core.settings import EngineSettings
from engine.face.fit import FaceFitter
from engine.stages.base import Stage
from engine.stages.composite import CompositeStage
from engine.stages.enhance_builtin import BuiltinEnhanceStage
from engine.stages.face_models import FaceModels
from engine.stages.faces import FaceStage
from engine.stages.fit import FitStage
from engine.stages.hands import HandStage
from engine.stages.neural_enhance import NeuralEnhanceStage
from engine.stages.neural_swap import NeuralSwapStage
from engine.stages.overlay import OverlayStage
from engine.stages.select import EnhancerSelector, SwapperSelector
from engine.stages.swap import SwapStage
from engine.swap.library import SourceLibrary
from engine.swap.renderer import FaceRenderer


def build_stages(
    settings: EngineSettings,
    source_faces: Sequence[Path] = (),
    models: FaceModels | None = None,
    library: SourceLibrary | None = None,
) -> list[Stage]:
    """The live pipeline: faces (detect or track, mesh) → fit → swap → enhance → composite →
    overlay. Quick: no model loads here. The bundled face models are the library's
    (`models`, if given, instead), on `settings.models.provider` for a library made
    here; unless they are loaded already they load in the background from now on
    (stages/face_models.py), like the neural swapper, enhancer and hand models, which
    load when the settings ask for them. (The "SYNTHETIC" label is the outputs' own:
    engine.outputs.guard.)

    `source_faces`, if given, are loaded into the library (so their keys resolve; that
    reads the photos with the face models, here and now); which one is active is
    `settings.swap.source_key` (see `with_sources`).
    """
    provider = settings.models.provider
    library = shared_library = library or SourceLibrary(provider=provider)
    if source_faces:
        library.load_identity(source_faces)
    if models is None:
        # Loaded already (a source photo was read with them; an identity from the
        # cache needs none): no thread, and the first frame needs no wait.
        models = (
            FaceModels.ready(library.analyzer)
            if library.analyzer_loaded
            else FaceModels(lambda: shared_library.analyzer)
        )
    models.start(settings)
    fitter = FaceFitter()
    return [
        FaceStage(models),
        FitStage(fitter),
        SwapperSelector(
            SwapStage(library, FaceRenderer(fitter)),
            lambda s: NeuralSwapStage.from_settings(s, shared_library),
        ),
        EnhancerSelector(BuiltinEnhanceStage(), NeuralEnhanceStage.from_settings),
        HandStage(provider),  # after the face is final, before it is blended in
        CompositeStage(),
        OverlayStage(),
    ]


def with_sources(
    settings: EngineSettings, library: SourceLibrary, source_faces: Sequence[Path] = ()
) -> EngineSettings:
    """Load the source photos (one person; the bundled sample face when none are given)
    and make them the active identity."""
    paths = list(source_faces) or [DEFAULT_SOURCE_FACE]
    key = library.load_identity(paths).key
    return dataclasses.replace(settings, swap=dataclasses.replace(settings.swap, source_key=key))


def wait_for_face_models(stages: Sequence[Stage], settings: EngineSettings) -> None:
    """Block until the stages' face models have loaded (ModelLoadError if they cannot):
    the app's build task waits here, off the GUI and engine threads, to report ready
    stages and their providers, or why they cannot start."""
    for stage in stages:
        if isinstance(stage, FaceStage):
            stage.models.wait(settings)


def providers_of(stages: Sequence[Stage]) -> list[str]:
    """Execution providers actually in use by the stages that run models."""
    seen: list[str] = []
    for stage in stages:
        for provider in stage.providers():
            if provider not in seen:
                seen.append(provider)
    return seen
