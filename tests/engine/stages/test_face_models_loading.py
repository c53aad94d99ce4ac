"""The built-in face models follow the lifecycle every model does: loaded on their own
thread (never the engine's, the capture's or the one building the stages), live frames
passed through with the reason "loading" until they are in, offline packets waiting for
them. Loads are held on events, so the tests know the models are not ready however fast
the machine is."""

from __future__ import annotations

import threading
from functools import cache

import pytest

from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.settings import EngineSettings, ModelSettings
from engine.face.analyzer import FaceAnalyzer
from engine.models.onnx import ModelLoadError
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources.image import ImageSource
from engine.stages.face_models import LOADING, FaceModels
from engine.stages.faces import FaceStage
from engine.swap.library import SourceLibrary

TARGET = SAMPLE_FACES_DIR / "grace_hopper.jpg"
CPU = EngineSettings(models=ModelSettings(provider="cpu"))
_SAFETY_S = 60.0  # only a broken test waits this long: every wait ends on an event


@cache
def _analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled("cpu")


class HeldLoad:
    """Hands out the real bundled models once `release` is set; records the thread."""

    def __init__(self, fail: str | None = None) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.thread_name = ""
        self._fail = fail

    def __call__(self) -> FaceAnalyzer:
        self.thread_name = threading.current_thread().name
        self.started.set()
        assert self.release.wait(_SAFETY_S), "the test never released the load"
        if self._fail is not None:
            raise ModelLoadError(self._fail)
        return _analyzer()


class RecordingLibrary(SourceLibrary):
    """A real library that notes which thread loads its face models."""

    def __init__(self) -> None:
        super().__init__(provider="cpu")
        self.loaded_on: list[str] = []

    @property
    def analyzer(self) -> FaceAnalyzer:
        if not self.analyzer_loaded:
            self.loaded_on.append(threading.current_thread().name)
        return super().analyzer


def _sourced() -> tuple[EngineSettings, SourceLibrary]:
    library = SourceLibrary(_analyzer())
    return with_sources(CPU, library), library


def _faces(stages: list[object]) -> FaceStage:
    return next(s for s in stages if isinstance(s, FaceStage))


def test_a_live_run_passes_frames_through_loading_until_the_first_swap() -> None:
    settings, library = _sourced()
    load = HeldLoad()
    engine = Engine(build_stages(settings, models=FaceModels(load), library=library), settings)
    packets: list[FramePacket] = []
    loading, swapped = threading.Event(), threading.Event()

    def listen(packet: FramePacket) -> None:
        packets.append(packet)
        if packet.skipped.get("faces") == LOADING:
            loading.set()
        if packet.check is not None and packet.check.swapped:
            swapped.set()

    engine.add_listener(listen)
    source = ImageSource(TARGET)
    session = LiveSession(engine, source)
    session.start()
    try:
        assert loading.wait(_SAFETY_S)  # frames flow while the models are held
        assert session.providers() == []  # nothing runs yet
        load.release.set()
        assert swapped.wait(_SAFETY_S)
    finally:
        assert session.stop(2.0)
    assert load.thread_name == "load-face-models"
    assert load.thread_name not in {engine.name, source.name, threading.current_thread().name}
    first_swap = next(i for i, p in enumerate(packets) if p.check and p.check.swapped)
    held = [p for p in packets[:first_swap] if p.skipped.get("faces") == LOADING]
    assert held and held == packets[: len(held)]  # "loading" first, then never again
    for packet in held:
        assert packet.face_models_loading and packet.faces == []
        assert packet.check is not None and packet.check.miss == "starting"  # the card
    assert all(not p.face_models_loading for p in packets[len(held) :])
    assert "CPUExecutionProvider" in session.providers()


def test_offline_packets_wait_for_the_models_instead_of_passing_through() -> None:
    settings, library = _sourced()
    load = HeldLoad()
    engine = Engine(build_stages(settings, models=FaceModels(load), library=library), settings)
    frame = read_image(TARGET)
    result: list[FramePacket] = []
    offline = FramePacket(0, 0, frame)  # live False: what `fusecam swap` and tests run
    worker = threading.Thread(target=lambda: result.append(engine.process(offline)))
    worker.start()
    assert load.started.wait(_SAFETY_S)
    load.release.set()
    worker.join(_SAFETY_S)
    (packet,) = result
    assert "faces" not in packet.skipped and not packet.face_models_loading
    assert packet.check is not None and packet.check.swapped  # the very first frame
    for stage in engine.stages:
        stage.close()


def test_the_stages_load_the_librarys_models_on_the_loader_thread() -> None:
    library = RecordingLibrary()
    stages = build_stages(CPU, library=library)  # returns before the models are in
    analyzer = _faces(stages).models.wait(CPU)
    assert library.loaded_on == ["load-face-models"]
    assert analyzer is library.analyzer  # one set for the stages and the source photos
    assert _faces(stages).providers() == ("CPUExecutionProvider",)
    for stage in stages:
        stage.close()


def test_models_loaded_already_serve_the_first_live_frame() -> None:
    """A library that read a source photo has its models: no thread, no wait."""
    settings, library = _sourced()
    stages = build_stages(settings, library=library)
    assert _faces(stages).models.analyzer is library.analyzer
    packet = Engine(stages, settings).process(FramePacket(0, 0, read_image(TARGET), live=True))
    assert packet.check is not None and packet.check.swapped
    for stage in stages:
        stage.close()


def test_a_model_that_cannot_load_says_why_live_and_fails_prepare() -> None:
    settings, library = _sourced()
    load = HeldLoad(fail="model 'face_landmark': file is missing")
    load.release.set()
    stages = build_stages(settings, models=FaceModels(load), library=library)
    with pytest.raises(ModelLoadError, match="face_landmark"):
        _faces(stages).prepare(settings)
    packet = Engine(stages, settings).process(FramePacket(0, 0, read_image(TARGET), live=True))
    assert "face_landmark" in packet.skipped["faces"]
    assert packet.check is not None and packet.check.miss == "starting"
    for stage in stages:
        stage.close()
