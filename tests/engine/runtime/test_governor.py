"""The adaptive quality governor: its ladder, its hysteresis on synthetic loads, and the
engine applying it to a stage of fixed synthetic cost, frame by frame."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import ClassVar

import cv2
import numpy as np
import pytest

from engine.core.face_records import FacePatch
from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.core.paths import DEMO_PORTRAIT
from engine.core.settings import (
    EngineSettings,
    EnhancerSettings,
    HandSettings,
    QualitySettings,
)
from engine.face.analyzer import FaceAnalyzer
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.governor import (
    EngineGovernor,
    GovernorConfig,
    GovernorDecision,
    LoadSample,
    QualityGovernor,
    build_ladder,
    load_of,
)
from engine.runtime.pipeline import Engine
from engine.stages.base import Stage
from engine.stages.select import SwapperSelector
from engine.swap.internal_scale import scale_face
from engine.swap.library import SourceLibrary

TARGET_MS = 50.0


def user(mode: str = "builtin", **quality: object) -> EngineSettings:
    q = QualitySettings(**{"target_p95_ms": TARGET_MS, **quality})  # type: ignore[arg-type]
    return EngineSettings(enhancer=EnhancerSettings(mode=mode), quality=q)  # type: ignore[arg-type]


Cost = Callable[[int, float], float]  # (step, t_s) → p95 ms at that step


def simulate(
    governor: QualityGovernor, cost: Cost, seconds: float, start: float = 0.0, fps: float = 30.0
) -> list[tuple[float, GovernorDecision]]:
    """Checks every 0.5 s, as EngineGovernor makes them; the frame window empties on
    every step change, as EngineGovernor's does."""
    changes: list[tuple[float, GovernorDecision]] = []
    cfg = governor.config
    t, since = start, start
    while t < start + seconds:
        t += cfg.check_interval_s
        frames = min(cfg.window_frames, int((t - since) * fps))
        p95 = cost(governor.step, t)
        decision = governor.update(LoadSample(t, p95, p95, frames))
        if decision is not None:
            since = t
            changes.append((t, decision))
    return changes


# --- ladder ------------------------------------------------------------------------------


def test_ladder_steps_enhancer_then_detection_then_resolution() -> None:
    names = [s.name for s in build_ladder(user("neural"))]
    assert names == [
        "as set",
        "enhancer built-in",
        "enhancer off",
        "face search every 60 frames",
        "render at 50%",
    ]
    ladder = build_ladder(user("neural"))
    assert [s.settings.enhancer.mode for s in ladder[:3]] == ["neural", "builtin", "off"]
    # Each step keeps what the previous gave up.
    assert ladder[-1].settings.enhancer.mode == "off"
    assert ladder[-1].settings.detection.redetect_every == 60
    assert ladder[-1].settings.quality.internal_scale == 0.5
    assert ladder[0].settings is ladder[0].settings  # step 0 is the user's own object
    assert build_ladder(user("off"))[1].name == "face search every 60 frames"


def test_ladder_includes_hands_only_when_on() -> None:
    settings = dataclasses.replace(
        user("off", internal_scale=0.6), hands=HandSettings(enabled=True, every_n=3)
    )
    names = [s.name for s in build_ladder(settings)]
    assert names == [
        "as set",
        "hand search every 6 frames",
        "face search every 60 frames",
        "render at 50%",
    ]


def test_load_uses_the_tightest_target() -> None:
    sample = LoadSample(0.0, processing_p95_ms=40.0, latency_p95_ms=45.0, frames=30)
    load, text = load_of(sample, QualitySettings(target_fps=30.0, target_p95_ms=60.0))
    assert load == pytest.approx(40.0 / (1000.0 / 30.0))
    assert "processing p95 40 ms" in text and "30 fps" in text
    load, text = load_of(sample, QualitySettings(target_fps=20.0, target_p95_ms=40.0))
    assert load == pytest.approx(45.0 / 40.0) and "latency p95 45 ms" in text


def test_quality_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="target_fps"):
        QualitySettings(target_fps=0.5)
    with pytest.raises(ValueError, match="internal_scale"):
        QualitySettings(internal_scale=0.1)


# --- the state machine ----------------------------------------------------------------------


def test_steps_down_once_and_stays_under_a_constant_overload() -> None:
    governor = QualityGovernor(user("builtin"))
    # Enhancer on: 70 ms (over the 50 ms target); off: 30 ms (well inside).
    changes = simulate(governor, lambda step, _t: 70.0 if step == 0 else 30.0, seconds=55)
    assert [(d.direction, d.name) for _, d in changes] == [("down", "enhancer off")]
    t_down = changes[0][0]
    # min_frames (0.5 s at 30 fps) plus three over-target checks.
    assert t_down <= 2.5
    assert governor.step == 1
    assert "enhancer off" in governor.status().text()
    # It knows going back up would cost ~70/30 of this load, so it does not try.
    assert "would need" in governor.reason


def test_no_step_while_the_load_hovers_near_the_target() -> None:
    rng = np.random.default_rng(7)
    governor = QualityGovernor(user("builtin"))
    # ±8% around the target: inside the band between headroom (70%) and over (110%).
    changes = simulate(governor, lambda _s, _t: TARGET_MS * rng.uniform(0.92, 1.08), 120)
    assert changes == []
    assert governor.step == 0
    assert "within target" in governor.reason or "near target" in governor.reason


def test_brief_spikes_do_not_step_down() -> None:
    governor = QualityGovernor(user("builtin"))
    # Every third check is over the target: never three in a row.
    changes = simulate(governor, lambda _s, t: 80.0 if round(t * 2) % 3 == 0 else 45.0, 60)
    assert changes == []


def test_cascades_down_to_the_first_step_that_fits() -> None:
    governor = QualityGovernor(user("neural"))
    costs = {0: 120.0, 1: 90.0, 2: 70.0, 3: 40.0, 4: 30.0, 5: 25.0}
    changes = simulate(governor, lambda step, _t: costs[step], seconds=40)
    assert [d.name for _, d in changes] == [
        "enhancer built-in",
        "enhancer off",
        "face search every 60 frames",
    ]
    assert all(d.direction == "down" for _, d in changes)
    times = [t for t, _ in changes]
    # Each step is judged on its own frames only: no two steps within one check window.
    assert min(np.diff(times)) >= 1.5
    assert times[-1] <= 8.0


def test_recovers_when_the_load_drops() -> None:
    governor = QualityGovernor(user("builtin"))

    def cost(step: int, t: float) -> float:
        slow = t < 30.0
        # Step 1 is inside the target but without headroom until the load drops.
        return (70.0 if slow else 20.0) if step == 0 else (40.0 if slow else 8.0)

    changes = simulate(governor, cost, seconds=60)
    assert [(d.direction, d.name) for _, d in changes] == [
        ("down", "enhancer off"),
        ("up", "as set"),
    ]
    t_up = changes[1][0]
    # Headroom must hold for up_after_s (5 s) after the drop at 30 s.
    assert 35.0 <= t_up <= 37.0
    assert governor.step == 0


def test_cooldown_after_a_step_down() -> None:
    config = GovernorConfig(up_after_s=1.0, cooldown_s=10.0)
    governor = QualityGovernor(user("builtin"), config)

    def cost(step: int, t: float) -> float:
        return (70.0 if t < 3.0 else 10.0) if step == 0 else (5.0 if t < 3.0 else 2.0)

    changes = simulate(governor, cost, seconds=30)
    (t_down, _), (t_up, up) = changes
    assert up.direction == "up"
    assert t_up - t_down >= 10.0


def test_a_failed_step_up_backs_off() -> None:
    config = GovernorConfig(memory_s=20.0)
    governor = QualityGovernor(user("builtin"), config)
    # Constant load: step 0 is over, step 1 has headroom. Once the measured cost of step 0
    # is older than memory_s it is retried; every undone retry doubles the wait.
    changes = simulate(governor, lambda step, _t: 70.0 if step == 0 else 30.0, seconds=400)
    ups = [t for t, d in changes if d.direction == "up"]
    assert 2 <= len(ups) <= 4
    gaps = np.diff(ups)
    assert np.all(gaps[1:] > gaps[:-1] * 1.5) if len(gaps) > 1 else True
    assert gaps[0] >= 2 * config.memory_s


def test_waits_for_enough_frames_at_a_new_step() -> None:
    governor = QualityGovernor(user("builtin"))
    for i in range(10):
        sample = LoadSample(float(i), 500.0, 500.0, frames=governor.config.min_frames - 1)
        assert governor.update(sample) is None
    assert governor.step == 0


def test_no_target_means_no_governor() -> None:
    governor = QualityGovernor(EngineSettings(enhancer=EnhancerSettings(mode="builtin")))
    assert not governor.active
    assert simulate(governor, lambda _s, _t: 500.0, seconds=20) == []
    assert governor.status().text() == "quality: as set (no target)"
    off = user("builtin", governor=False)
    assert simulate(QualityGovernor(off), lambda _s, _t: 500.0, seconds=20) == []


def test_user_changes_keep_or_reset_the_step() -> None:
    governor = QualityGovernor(user("builtin"))
    simulate(governor, lambda step, _t: 70.0 if step == 0 else 30.0, seconds=5)
    assert governor.step == 1
    # A slider or the target: same ladder, same step, the new value carried through.
    slider = dataclasses.replace(user("builtin"), enhancer=EnhancerSettings("builtin", 0.3))
    assert governor.set_user(slider) is None
    assert governor.step == 1 and governor.settings.enhancer.mode == "off"
    assert governor.ladder[0].settings.enhancer.strength == 0.3
    # The enhancer mode: another ladder, start again from the user's choice.
    decision = governor.set_user(user("neural"))
    assert decision is not None and decision.direction == "reset" and governor.step == 0
    # Removing the target hands everything back at the next check.
    simulate(governor, lambda step, _t: 200.0 if step == 0 else 30.0, seconds=5)
    assert governor.step > 0
    governor.set_user(user("neural", target_p95_ms=None))
    decision = governor.update(LoadSample(99.0, 10.0, 10.0, 60))
    assert (
        decision is not None and decision.step == 0 and governor.settings.enhancer.mode == "neural"
    )


# --- in the engine, in real time ------------------------------------------------------------


class CostStage(Stage):
    """Synthetic load (the real stages' cost depends on the machine): a fixed cost by
    enhancer mode, like an enhancer that costs 45 ms a frame, until `fast` is set. It
    costs no time; `_drive` hands the cost to the governor as the frame's processing time,
    so the decisions follow from these numbers, not from how busy the machine is."""

    name: ClassVar[str] = "slow"

    def __init__(self) -> None:
        self.fast = False
        self.modes_seen: list[str] = []
        self.cost_ms = 0.0

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        mode = settings.enhancer.mode
        self.modes_seen.append(mode)
        if self.fast:
            self.cost_ms = 10.0 if mode != "off" else 3.0
        else:
            self.cost_ms = 60.0 if mode != "off" else 15.0
        return packet


class FrameClock:
    """The governor's clock, advanced a camera frame (1/30 s) per frame driven: how many
    checks and cooldowns a run goes through then depends on the frames, not on how
    many of them a busy machine fits into a second."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _drive(
    engine: Engine, stage: CostStage, frames: int, frame_id: int, clock: FrameClock | None = None
) -> int:
    frame = np.zeros((8, 8, 3), np.uint8)
    for _ in range(frames):
        packet = engine.process(FramePacket(frame_id, time.monotonic_ns(), frame))
        packet.processing_ms = stage.cost_ms  # the stage's synthetic cost, not the clock's
        engine.publish(packet)
        frame_id += 1
        if clock is not None:
            clock.now += 1 / 30
    return frame_id


def test_engine_steps_down_stays_and_steps_back_up() -> None:
    config = GovernorConfig(
        check_interval_s=0.1,
        window_frames=20,
        min_frames=5,
        down_checks=2,
        up_after_s=0.6,
        cooldown_s=0.5,
    )
    stage = CostStage()
    # A frame-rate target: its load is the processing time alone (the one `_drive` sets),
    # where a latency target would add the real time between capture and publish.
    settings = user("builtin", target_p95_ms=None, target_fps=25.0)  # 40 ms a frame
    clock = FrameClock()
    engine = Engine([stage], settings, governor=EngineGovernor(config, clock))
    assert engine.effective_settings.enhancer.mode == "builtin"

    frame_id = _drive(engine, stage, 60, 0, clock)  # 2 s of camera time
    steps = [d.direction for d in engine.governor.decisions]
    assert steps == ["down"], steps
    assert engine.effective_settings.enhancer.mode == "off"
    assert engine.settings is settings and engine.settings.enhancer.mode == "builtin"
    status = engine.governor.status()
    assert status.active and status.step == 1 and status.name == "enhancer off"
    # 15 ms of 40 leaves headroom, but going back up was measured at 60 ms (150%): it stays.
    assert status.load == pytest.approx(15 / 40)
    assert "'as set' would need ~150%" in status.reason, status.reason
    assert stage.modes_seen[-1] == "off"

    stage.fast = True
    _drive(engine, stage, 60, frame_id, clock)
    steps = [d.direction for d in engine.governor.decisions]
    assert steps == ["down", "up"], steps
    assert engine.effective_settings.enhancer.mode == "builtin"
    assert stage.modes_seen[-1] == "builtin"
    assert engine.governor.status().load == pytest.approx(10 / 40)


def test_user_settings_pass_through_without_a_target() -> None:
    stage = CostStage()
    settings = EngineSettings(enhancer=EnhancerSettings(mode="neural"))
    engine = Engine([stage], settings)
    _drive(engine, stage, 10, 0)
    assert engine.effective_settings is settings
    new = dataclasses.replace(settings, enhancer=EnhancerSettings(mode="off"))
    engine.set_settings(new)
    assert engine.settings is new and engine.effective_settings is new
    assert not engine.governor.status().active


# --- the "render at 50%" rung: the engine honours quality.internal_scale ----------------------


@pytest.fixture(scope="module")
def portrait_faces() -> tuple[list[Stage], EngineSettings, FramePacket]:
    """The bundled demo portrait through detect → mesh → fit (the swapper's input)."""
    library = SourceLibrary(FaceAnalyzer.bundled("cpu"))
    settings = with_sources(EngineSettings(), library)
    stages = build_stages(settings, library=library)
    frame = read_image(DEMO_PORTRAIT)
    packet = FramePacket(0, 0, frame)
    for stage in stages:
        if stage.name == "swapper":
            break
        packet = stage.process(packet, settings)
    assert packet.faces and packet.faces[0].fit is not None
    return stages, settings, packet


def _swap(
    stages: list[Stage], settings: EngineSettings, packet: FramePacket, scale: float
) -> FacePatch:
    swapper = next(s for s in stages if s.name == "swapper")
    assert isinstance(swapper, SwapperSelector)
    copy = FramePacket(0, 0, packet.frame, faces=[dataclasses.replace(f) for f in packet.faces])
    quality = dataclasses.replace(settings.quality, internal_scale=scale)
    out = swapper.process(copy, dataclasses.replace(settings, quality=quality))
    patch = out.faces[0].patch
    assert patch is not None
    return patch


def _on_frame(patch: FacePatch, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    image = np.zeros((*shape[:2], 3), np.float32)
    mask = np.zeros(shape[:2], np.float32)
    w, h = patch.box_size
    image[patch.y0 : patch.y0 + h, patch.x0 : patch.x0 + w] = patch.on_frame_grid(patch.image)
    mask[patch.y0 : patch.y0 + h, patch.x0 : patch.x0 + w] = patch.on_frame_grid(patch.mask)
    return image, mask


def test_half_scale_render_lands_where_the_full_one_does(
    portrait_faces: tuple[list[Stage], EngineSettings, FramePacket],
) -> None:
    stages, settings, packet = portrait_faces
    full = _swap(stages, settings, packet, 1.0)
    half = _swap(stages, settings, packet, 0.5)
    assert half.image.dtype == np.float32 and half.mask.shape == half.image.shape[:2]
    full_img, full_mask = _on_frame(full, packet.frame.shape)
    half_img, half_mask = _on_frame(half, packet.frame.shape)
    a, b = full_mask > 0.5, half_mask > 0.5
    # Same place, same outline (0.95, not more: the soft edge where a source's fringe is
    # kept off the forehead thresholds a little differently after the half-scale resample).
    assert (a & b).sum() / (a | b).sum() > 0.95
    inner = cv2.erode((a & b).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0

    def error(img: np.ndarray) -> float:
        return float(np.abs(full_img[inner] - img[inner]).mean())

    # Aligned to the pixel: any one-pixel shift of the half-scale face matches worse…
    shifted = [np.roll(half_img, d, axis) for d in (-1, 1) for axis in (0, 1)]
    assert error(half_img) < min(error(img) for img in shifted)
    # …and it is the same face, only softer (luminance tracks the full render's).
    r = np.corrcoef(full_img[inner].mean(axis=1), half_img[inner].mean(axis=1))[0, 1]
    assert r > 0.9, r
    # At scale 1 the wrapper is transparent (the patch is the swapper's own).
    assert _swap(stages, settings, packet, 1.0).x0 == full.x0


def test_scale_face_keeps_the_pose_free_shape() -> None:
    from engine.face.fit import FaceFitter

    frame = read_image(DEMO_PORTRAIT)
    face = FaceAnalyzer.bundled("cpu").analyze_image(frame)[0]
    assert face.landmarks is not None
    fitter = FaceFitter()
    face.fit = fitter.fit(frame, face.landmarks)
    small = scale_face(face, 0.5, (40, 30))
    assert small.landmarks is not None and small.fit is not None
    np.testing.assert_allclose(
        small.landmarks[:, :2], (face.landmarks[:, :2] - [40, 30]) * 0.5, rtol=1e-5
    )
    refit = fitter.fit(None, small.landmarks)
    np.testing.assert_allclose(refit.pose.scale, small.fit.pose.scale, rtol=1e-4)
    np.testing.assert_allclose(refit.pose.translation, small.fit.pose.translation, atol=1e-3)
    np.testing.assert_allclose(refit.canonical_landmarks, face.fit.canonical_landmarks, atol=1e-4)
