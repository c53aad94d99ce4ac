"""Sub-step timing (`with packet.step(...)`), stages that skip a frame, and how the engine
and its statistics carry both."""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np
import pytest

from engine.core.packet import FramePacket
from engine.core.profile import NO_STEPS, StepTimer, depth_of, parent_of
from engine.core.settings import EngineSettings, OutputSettings
from engine.runtime.pipeline import Engine
from engine.stages.base import Stage


def _frame() -> np.ndarray:
    return np.zeros((24, 32, 3), np.uint8)


def test_steps_nest_under_the_open_step_and_add_up_per_name() -> None:
    steps = StepTimer()
    steps.begin("swapper")
    for _ in range(2):  # one per face: the two add up under one name
        with steps.step("render"), steps.step("raster"):
            time.sleep(0.002)
    with steps.step("colour"):
        pass
    assert list(steps.times_ms) == ["swapper/render/raster", "swapper/render", "swapper/colour"]
    assert steps.times_ms["swapper/render/raster"] >= 4.0
    assert steps.times_ms["swapper/render"] >= steps.times_ms["swapper/render/raster"]
    assert steps.prefix == "swapper"
    assert parent_of("swapper/render/raster") == "swapper/render" and parent_of("swapper") == ""
    assert depth_of("swapper/render/raster") == 2


def test_a_step_that_raises_still_records_and_closes() -> None:
    steps = StepTimer()
    steps.begin("fitter")
    with pytest.raises(ValueError), steps.step("pose"):
        raise ValueError("bad landmarks")
    assert "fitter/pose" in steps.times_ms
    assert steps.prefix == "fitter"  # the next step is the stage's, not the failed one's


def test_profiling_off_records_nothing() -> None:
    NO_STEPS.begin("faces")
    with NO_STEPS.step("ort_run"):
        pass
    NO_STEPS.add("queue", 3.0)
    assert NO_STEPS.times_ms == {} and not NO_STEPS.enabled
    packet = FramePacket(0, 0, _frame())
    with packet.step("anything"):
        pass
    assert packet.steps is NO_STEPS and packet.steps.times_ms == {}


class Stepped(Stage):
    """Two timed parts and one left out, like a real stage half instrumented."""

    name: ClassVar[str] = "stepped"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        with packet.step("first"):
            time.sleep(0.003)
        with packet.step("second"), packet.step("inner"):
            time.sleep(0.002)
        time.sleep(0.001)  # not in a step: the profile's "(other)"
        return packet


class SkipsOddFrames(Stage):
    name: ClassVar[str] = "sometimes"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if packet.frame_id % 2:
            packet.skip(self.name, "tracking")
        return packet


def test_the_engine_records_steps_per_stage_when_profiling() -> None:
    engine = Engine([Stepped()])
    quiet = engine.process(FramePacket(0, time.monotonic_ns(), _frame()))
    assert quiet.steps is NO_STEPS  # off by default: nothing recorded
    engine.profile = True
    packet = engine.process(FramePacket(1, time.monotonic_ns(), _frame()))
    times = packet.steps.times_ms
    assert set(times) == {"stepped/first", "stepped/second/inner", "stepped/second"}
    stage_ms = packet.timings_ms["stepped"]
    assert times["stepped/first"] + times["stepped/second"] <= stage_ms
    assert times["stepped/first"] >= 3.0 and times["stepped/second/inner"] >= 2.0


def test_a_skipped_stage_has_no_time_and_the_stats_say_why() -> None:
    engine = Engine([SkipsOddFrames()])
    for frame_id in range(6):
        packet = engine.process(FramePacket(frame_id, time.monotonic_ns(), _frame()))
        engine.publish(packet)
        ran = frame_id % 2 == 0
        assert ("sometimes" in packet.timings_ms) == ran
        assert packet.skipped == ({} if ran else {"sometimes": "tracking"})
    snap = engine.stats.snapshot()
    assert snap.skipped == {"sometimes": {"tracking": 3}}
    assert snap.last_skipped == {"sometimes": "tracking"}  # frame 5 skipped it
    assert snap.totals["sometimes"].frames == 3 and snap.totals["processing"].frames == 6


def test_the_engine_times_its_own_work_when_profiling() -> None:
    mirrored = EngineSettings(output=OutputSettings(mirror=True))
    engine = Engine([Stepped()], mirrored)
    engine.profile = True
    first = engine.process(FramePacket(0, time.monotonic_ns(), _frame()))
    engine.publish(first)
    assert {"engine/mirror", "engine/publish"} <= set(first.steps.times_ms)
    # Statistics and listeners run after a frame is recorded: the next frame carries them.
    second = engine.process(FramePacket(1, time.monotonic_ns(), _frame()))
    assert {"engine/stats", "engine/listeners"} <= set(second.steps.times_ms)
