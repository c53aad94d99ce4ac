"""The stage contract: every stage declares the whole lifecycle, and the selectors report
the stage that really runs (its execution providers reach the HUD and `fusecam bench`)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pytest

from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, EnhancerSettings, SwapSettings
from engine.face.analyzer import FaceAnalyzer
from engine.models.onnx import ModelLoadError
from engine.runtime.factory import build_stages, providers_of
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.stages.base import Stage
from engine.stages.select import EnhancerSelector, SwapperSelector
from engine.swap.library import SourceLibrary

GPU = ("CUDAExecutionProvider", "CPUExecutionProvider")


class Fake(Stage):
    name: ClassVar[str] = "fake"

    def __init__(self, providers: tuple[str, ...] = ()) -> None:
        self._providers = providers
        self.frames = 0

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        self.frames += 1
        return packet

    def providers(self) -> tuple[str, ...]:
        return self._providers


def packet() -> FramePacket:
    """A frame with one (tracked) face: a swapper has nothing to do without one."""
    return FramePacket(0, 0, np.zeros((16, 16, 3), np.uint8), faces=[Face(0, None)])


def test_the_defaults_do_nothing_and_report_no_provider() -> None:
    stage = Fake()
    stage.prepare(EngineSettings())
    stage.close()
    assert Stage.providers(stage) == ()
    with pytest.raises(TypeError):
        Stage()  # type: ignore[abstract]  # process has no default


def test_every_live_stage_follows_the_contract_with_a_unique_name() -> None:
    library = SourceLibrary(FaceAnalyzer.bundled("cpu"))
    stages = build_stages(EngineSettings(), library=library)
    assert all(isinstance(s, Stage) for s in stages)
    names = [s.name for s in stages]
    assert len(set(names)) == len(names), names
    # The timing keys packets, the HUD and the bench JSON show.
    assert names == [
        "faces",
        "fitter",
        "swapper",
        "enhancer",
        "hands",
        "compositor",
        "overlay",
    ]
    session = LiveSession(Engine(stages))
    assert session.prepare_stages() == {}
    assert "CPUExecutionProvider" in session.providers()  # the face models
    assert session.stop(0.5)


@pytest.mark.parametrize(
    ("selector_type", "wants_neural"),
    [
        (SwapperSelector, EngineSettings(swap=SwapSettings(swapper="inswapper"))),
        (EnhancerSelector, EngineSettings(enhancer=EnhancerSettings(mode="neural"))),
    ],
)
def test_a_selector_reports_the_providers_of_the_stage_that_runs(
    selector_type: type[SwapperSelector | EnhancerSelector], wants_neural: EngineSettings
) -> None:
    builtin, neural = Fake(), Fake(GPU)
    selector = selector_type(builtin, lambda _settings: neural)
    engine = Engine([selector], wants_neural)
    assert providers_of(engine.stages) == []  # nothing ran yet: the built-in would
    selector.prepare(wants_neural)  # loads the neural stage now
    engine.process(packet())
    assert neural.frames == 1 and builtin.frames == 0
    assert selector.providers() == GPU
    assert providers_of(engine.stages) == list(GPU)  # what the HUD shows
    builtin_settings = EngineSettings(enhancer=EnhancerSettings(mode="builtin"))
    engine.set_settings(builtin_settings)
    engine.process(packet())
    assert builtin.frames == 1 and selector.providers() == ()
    selector.close()


def test_a_selector_whose_model_cannot_load_says_why_and_falls_back() -> None:
    def missing(_settings: EngineSettings) -> Stage:
        raise ModelLoadError("model 'inswapper_128' is not downloaded")

    builtin = Fake()
    selector = SwapperSelector(builtin, missing)
    settings = EngineSettings(swap=SwapSettings(swapper="inswapper"))
    with pytest.raises(ModelLoadError, match="not downloaded"):
        selector.prepare(settings)
    reason = "model 'inswapper_128' is not downloaded"
    assert LiveSession(Engine([selector], settings)).prepare_stages() == {"swapper": reason}
    out = selector.process(packet(), settings)
    assert builtin.frames == 1 and "not downloaded" in out.fallbacks["swapper"]
    assert selector.providers() == ()
    selector.close()


@pytest.mark.parametrize(
    ("settings", "faces", "reason"),
    [
        (EngineSettings(swap=SwapSettings(enabled=False)), [Face(0, None)], "off"),
        (EngineSettings(), [], "no face"),
    ],
)
def test_a_swapper_with_nothing_to_do_is_skipped_not_timed(
    settings: EngineSettings, faces: list[Face], reason: str
) -> None:
    builtin = Fake()
    engine = Engine([SwapperSelector(builtin)], settings)
    frame = np.zeros((16, 16, 3), np.uint8)
    out = engine.process(FramePacket(0, 0, frame, faces=faces))
    assert builtin.frames == 0
    assert out.skipped == {"swapper": reason} and "swapper" not in out.timings_ms


class Scaled(Stage):
    """A swapper stand-in that records what it was given and reports through the packet."""

    name: ClassVar[str] = "scaled"

    def __init__(self) -> None:
        self.frame_shapes: list[tuple[int, ...]] = []

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        self.frame_shapes.append(packet.frame.shape)
        packet.skip("inner", "nothing to do")
        packet.timings_ms["inner_part"] = 1.5
        return packet


def _meshed_face() -> Face:
    grid = np.stack(np.meshgrid(np.linspace(40, 80, 12), np.linspace(30, 80, 12)), -1)
    landmarks = np.concatenate([grid.reshape(-1, 2), np.zeros((144, 1))], 1)
    return Face(0, landmarks=landmarks.astype(np.float32))


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_what_the_swapper_records_at_an_internal_scale_reaches_the_packet(scale: float) -> None:
    def missing(_settings: EngineSettings) -> Stage:
        raise ModelLoadError("model 'inswapper_128' is not downloaded")

    builtin = Scaled()
    selector = SwapperSelector(builtin, missing)
    settings = EngineSettings(swap=SwapSettings(swapper="inswapper"))
    quality = dataclasses.replace(settings.quality, internal_scale=scale)
    settings = dataclasses.replace(settings, quality=quality)
    with pytest.raises(ModelLoadError):
        selector.prepare(settings)  # the load has failed: the reason is known now
    frame = np.zeros((120, 160, 3), np.uint8)
    out = selector.process(FramePacket(0, 0, frame, faces=[_meshed_face()]), settings)
    shape = builtin.frame_shapes[0]
    assert (shape[0] < 120) == (scale < 1.0)  # the stand-in really ran on the scaled region
    assert out.frame is frame and out.skipped == {"inner": "nothing to do"}
    assert out.timings_ms == {"inner_part": 1.5}
    assert "not downloaded" in out.fallbacks["swapper"]
    assert (out.internal_scale is not None) == (scale < 1.0)
    selector.close()
