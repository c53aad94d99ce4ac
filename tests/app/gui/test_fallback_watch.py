"""The window's neural-fallback messages come from the packet's typed `fallbacks`, written
by a real selector stage whose model cannot load."""

from __future__ import annotations

import numpy as np
import pytest

from app.gui.widgets.messages import FallbackWatch
from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, EnhancerSettings
from engine.models.onnx import ModelLoadError
from engine.stages.base import Stage
from engine.stages.enhance_builtin import BuiltinEnhanceStage
from engine.stages.select import EnhancerSelector

NEURAL = EngineSettings(enhancer=EnhancerSettings(mode="neural"))


def _missing(_settings: EngineSettings) -> Stage:
    raise ModelLoadError("no neural enhancer model is chosen")


def _packet() -> FramePacket:
    return FramePacket(0, 0, np.zeros((32, 32, 3), np.uint8), faces=[Face(0, None)])


def test_a_reason_is_reported_once_per_change() -> None:
    selector = EnhancerSelector(BuiltinEnhanceStage(), _missing)
    with pytest.raises(ModelLoadError):
        selector.prepare(NEURAL)  # the load has settled: packets now carry its reason
    watch = FallbackWatch()
    first = selector.process(_packet(), NEURAL)
    assert watch.update(first.fallbacks) == [("enhancer", "no neural enhancer model is chosen")]
    assert watch.update(selector.process(_packet(), NEURAL).fallbacks) == []  # unchanged
    builtin = EngineSettings(enhancer=EnhancerSettings(mode="builtin"))
    assert watch.update(selector.process(_packet(), builtin).fallbacks) == [("enhancer", None)]
    selector.close()
