"""Where the stages' models run and with how many threads: `build_stages` puts the bundled
models on the settings' execution provider, every model reports all its providers, and
the neural models get more than one intra-op thread where the machine has the cores."""

from __future__ import annotations

import os
from pathlib import Path

from engine.core.settings import EngineSettings, HandSettings, ModelSettings
from engine.models.onnx import load_model, neural_threads
from engine.neural.restorer import FaceRestorer
from engine.runtime.factory import build_stages
from engine.stages.faces import FaceStage
from engine.stages.hands import HandStage
from tests.engine.neural_fakes import make_gfpgan


def _threads(session: object) -> int:
    return int(session.get_session_options().intra_op_num_threads)  # type: ignore[attr-defined]


def test_the_bundled_models_load_on_the_settings_provider() -> None:
    settings = EngineSettings(models=ModelSettings(provider="cpu"))
    stages = build_stages(settings)
    faces = next(s for s in stages if isinstance(s, FaceStage))
    analyzer = faces.models.wait(settings)
    for model in (analyzer.short.model, analyzer.full.model, analyzer.mesh.model):
        assert model.requested == ("CPUExecutionProvider",)
        assert _threads(model.session) == 1  # the small face models: one thread
    assert faces.providers() == ("CPUExecutionProvider",)
    hands = next(s for s in stages if isinstance(s, HandStage))
    hands.prepare(EngineSettings(models=settings.models, hands=HandSettings(enabled=True)))
    tracker = hands.tracker
    assert tracker is not None and tracker.detector.model.requested == ("CPUExecutionProvider",)
    for stage in stages:
        stage.close()


def test_every_provider_a_session_reports_is_listed() -> None:
    """(A CPU-only machine's sessions report one provider; with CUDA they report two.)"""
    stage = HandStage.bundled("cpu")
    tracker = stage.tracker
    assert tracker is not None
    reported = [*tracker.detector.model.providers, *tracker.landmarker.model.providers]
    assert stage.providers() == tuple(dict.fromkeys(reported))


def test_neural_models_get_more_than_one_thread_on_a_multicore_cpu(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert neural_threads() == max(1, min(4, cores or 1))
    restorer = FaceRestorer.load(make_gfpgan(tmp_path / "gfpgan.onnx"), provider="cpu")
    assert _threads(restorer.runner.model.session) == neural_threads()
    if (cores or 1) > 1:
        assert _threads(restorer.runner.model.session) > 1
    face = load_model(tmp_path / "gfpgan.onnx", provider="cpu")
    assert _threads(face.session) == 1


def test_every_session_is_made_with_the_one_options_policy(repo_root: Path) -> None:
    """Options are built in one place (`models/onnx.session_options`); every session the
    code makes passes them, so no session runs with onnxruntime's defaults (a thread
    per core, competing with OBS on a 2-core machine)."""
    built, sessions = [], []
    for folder in ("engine", "app", "tools", "tests"):
        for path in sorted((repo_root / folder).rglob("*.py")):
            name = path.relative_to(repo_root).as_posix()
            if name == "tests/engine/stages/test_model_lifecycle.py":
                continue  # this test names what it looks for
            text = path.read_text(encoding="utf-8")
            built += [name] * text.count("SessionOptions()")
            calls = text.split("InferenceSession(")[1:]
            sessions += [(name, call[:200]) for call in calls]
    assert built == ["engine/models/onnx.py"]
    made = [(name, call) for name, call in sessions if not call.startswith(")")]
    assert made and all("session_options(" in call for _, call in made), made
