"""The gallery's previews follow the stream's swapper: the neural model's swap once the
selector ran it (real ONNX stand-ins, tests/engine/neural_fakes.py), so a built-in-only
control (likeness, disabled then) no longer changes them; the built-in render otherwise."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, ModelSettings
from engine.models import Manifest, ModelSpec, ModelStore
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.runtime.preview_swapper import SwapperPreview
from engine.stages.neural_swap import NeuralSwapStage
from engine.stages.select import SwapperSelector
from engine.swap.library import SourceLibrary
from engine.swap.preview import FacePreviewer
from tests.engine.neural_fakes import FACES_DIR, make_arcface, make_inswapper

pytestmark = [pytest.mark.testdata]


def _spec(path: Path, family: str) -> ModelSpec:
    return ModelSpec(
        name=path.stem,
        file=path.name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        licence="test",
        urls=(f"https://example.org/{path.name}",),
        family=family,
    )


def test_the_preview_is_the_neural_swap_once_the_stream_runs_it(tmp_path: Path) -> None:
    faces = [FACES_DIR / n for n in ("obama_1.jpg", "biden_1.jpg")]
    if not all(p.is_file() for p in faces):
        pytest.skip("../shared/testdata is absent")
    models = tmp_path / "models"
    models.mkdir()
    specs = (
        _spec(make_inswapper(models / "fake_swapper.onnx"), "inswapper"),
        _spec(make_arcface(models / "fake_arcface.onnx"), "arcface"),
    )
    store = ModelStore(Manifest(specs), data_dir=tmp_path)
    library = SourceLibrary(cache_dir=tmp_path / "cache")
    settings = EngineSettings(
        models=ModelSettings(
            provider="cpu", swapper_model="fake_swapper", recognition_model="fake_arcface"
        )
    )
    settings = with_sources(settings, library, faces[1:])
    key = settings.swap.source_key
    assert key is not None
    stages = build_stages(settings, library=library)
    at = [s.name for s in stages].index("swapper")
    stages[at] = SwapperSelector(
        stages[at].builtin,  # type: ignore[attr-defined]
        lambda s: NeuralSwapStage.from_settings(s, library, store),
    )
    engine = Engine(stages, settings)
    preview = SwapperPreview(lambda: engine.stages)
    frame = cv2.imread(str(faces[0]))
    packet = engine.process(FramePacket(1, 0, frame))
    builtin = FacePreviewer().render(packet, key, library, settings)
    assert np.array_equal(preview.render(packet, key, library, settings), builtin)
    assert preview.last_kind == "builtin"

    neural = dataclasses.replace(
        settings, swap=dataclasses.replace(settings.swap, swapper="inswapper")
    )
    engine.set_settings(neural)
    for stage in stages:
        stage.prepare(neural)  # the model loads now (live, it loads in the background)
    packet = engine.process(FramePacket(2, 33_000_000, frame))
    assert packet.neural_swap is not None and packet.neural_swap.faces == 1
    shown = preview.render(packet, key, library, neural)
    assert preview.last_kind == "neural"
    assert shown.shape == builtin.shape and np.abs(shown.astype(int) - builtin).mean() > 1
    # The built-in swapper's own control is off under the neural one: no effect here.
    other = dataclasses.replace(neural, swap=dataclasses.replace(neural.swap, likeness=0.1))
    assert np.array_equal(preview.render(packet, key, library, other), shown)
    # The identity mix is the neural swapper's: it does change the preview.
    mixed = dataclasses.replace(neural, swap=dataclasses.replace(neural.swap, latent_blend=0.2))
    assert not np.array_equal(preview.render(packet, key, library, mixed), shown)
    for stage in stages:
        stage.close()
