"""The neural stages inside the real pipeline: Fusecam's detector, mesh and compositor with
the neural swapper and enhancer (synthetic models) in place of the built-in ones."""

from __future__ import annotations

import hashlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, EnhancerSettings, ModelSettings
from engine.models import Manifest, ModelSpec, ModelStore
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.stages.neural_enhance import NeuralEnhanceStage
from engine.stages.neural_swap import NeuralSwapStage
from engine.swap.library import SourceLibrary
from tests.engine.neural_fakes import FACES_DIR, make_arcface, make_gfpgan, make_inswapper

pytestmark = [pytest.mark.testdata, pytest.mark.slow]


def _spec(path: Path, family: str) -> ModelSpec:
    data = path.read_bytes()
    return ModelSpec(
        name=path.stem,
        file=path.name,
        sha256=hashlib.sha256(data).hexdigest(),
        licence="test",
        urls=(f"https://example.org/{path.name}",),
        family=family,
    )


def test_neural_stages_compose_with_the_pipeline(tmp_path: Path) -> None:
    faces = [FACES_DIR / n for n in ("obama_1.jpg", "biden_1.jpg", "biden_2.jpg")]
    if not all(p.is_file() for p in faces):
        pytest.skip("../shared/testdata is absent")
    models = tmp_path / "models"
    models.mkdir()
    swapper = make_inswapper(models / "fake_swapper.onnx")
    arcface = make_arcface(models / "fake_arcface.onnx")
    gfpgan = make_gfpgan(tmp_path / "fake_gfpgan.onnx")
    store = ModelStore(
        Manifest((_spec(swapper, "inswapper"), _spec(arcface, "arcface"))), data_dir=tmp_path
    )
    library = SourceLibrary(cache_dir=tmp_path / "cache")
    settings = EngineSettings(
        enhancer=EnhancerSettings(mode="neural", strength=0.3),
        models=ModelSettings(
            provider="cpu",
            swapper_model="fake_swapper",
            recognition_model="fake_arcface",
            enhancer_model=str(gfpgan),
        ),
    )
    settings = with_sources(settings, library, faces[1:])
    stages = build_stages(settings, library=library)
    at = [s.name for s in stages].index("swapper")
    stages[at] = NeuralSwapStage.from_settings(settings, library, store)
    stages.insert(at + 1, NeuralEnhanceStage.from_settings(settings, store))

    frame = cv2.imread(str(faces[0]))
    packet = Engine(stages, settings).process(FramePacket(1, 0, frame))

    assert packet.error is None, packet.error
    swapped, enhanced = packet.neural_swap, packet.neural_enhance
    assert swapped is not None and swapped.faces == 1
    assert enhanced is not None and enhanced.faces == 1
    patch = packet.faces[0].patch
    assert patch is not None and packet.output is not None
    changed = np.abs(packet.output.astype(np.int16) - frame).max(axis=2) > 0
    ys, xs = np.nonzero(changed)
    assert len(xs) > 10_000  # the face was replaced…
    w, h = patch.box_size  # the frame box (the patch may be on a coarser grid)
    assert xs.min() >= patch.x0 and xs.max() < patch.x0 + w  # …and nothing outside it
    assert ys.min() >= patch.y0 and ys.max() < patch.y0 + h
