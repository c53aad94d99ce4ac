"""Adaptive quality governor: keeps the p95 frame time inside the user's target by stepping
quality down a ladder when it is missed and back up when there is headroom.

`QualityGovernor` is a pure state machine over `LoadSample`s (no clock, no threads), so
tests drive it with synthetic numbers. `EngineGovernor` connects it to an Engine: it
collects each frame's times *at the current step only* (a step change empties the
window, so old frames never trigger a second change), checks at most every
`check_interval_s`, and derives the effective settings from the user's. The user's
settings are never rewritten: the governor's choice is a separate, derived object.

Hysteresis, so it does not flap:
- down: the load (p95 / target) stays above 1 + `over_margin` for `down_checks` checks;
- up: the load stays below `headroom` for `up_after_s`, no sooner than `cooldown_s`
  after a step down, and the step above is predicted to fit (its cost relative to this
  step was measured when the governor left it; a measurement is trusted for `memory_s`,
  doubled each time a step up had to be undone, so a load that really changed is
  retried, rarely).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, QualitySettings

log = logging.getLogger(__name__)

Direction = Literal["down", "up", "reset"]
_MAX_REDETECT = 240
# Measured on the built-in swapper (720p, 350 px face, CPU): 0.75 saved nothing net (the
# resampling costs what the smaller render saves), 0.5 saved ~1-3 ms of 6-10 ms.
_SCALES = (0.5,)
_MAX_BACKOFF = 8.0


@dataclass(frozen=True, slots=True)
class QualityStep:
    name: str
    settings: EngineSettings


def build_ladder(user: EngineSettings) -> tuple[QualityStep, ...]:
    """Step 0 is the user's settings; each further step gives up a little more quality."""
    steps = [QualityStep("as set", user)]

    def push(name: str, settings: EngineSettings) -> None:
        steps.append(QualityStep(name, settings))

    def replace(section: str, **changes: object) -> EngineSettings:
        current = steps[-1].settings
        part = dataclasses.replace(getattr(current, section), **changes)
        return dataclasses.replace(current, **{section: part})

    if user.enhancer.mode == "neural":
        push("enhancer built-in", replace("enhancer", mode="builtin"))
    if user.enhancer.mode != "off":
        push("enhancer off", replace("enhancer", mode="off"))
    if user.hands.enabled and user.hands.every_n * 2 <= 120:
        n = user.hands.every_n * 2
        push(f"hand search every {n} frames", replace("hands", every_n=n))
    redetect = min(_MAX_REDETECT, user.detection.redetect_every * 2)
    if redetect > user.detection.redetect_every:
        push(f"face search every {redetect} frames", replace("detection", redetect_every=redetect))
    for scale in _SCALES:
        if scale < user.quality.internal_scale:
            push(f"render at {scale:.0%}", replace("quality", internal_scale=scale))
    return tuple(steps)


@dataclass(frozen=True, slots=True)
class GovernorConfig:
    check_interval_s: float = 0.5
    window_frames: int = 60  # p95 over at most this many frames at the current step
    min_frames: int = 12  # frames needed at the current step before judging it
    over_margin: float = 0.10
    down_checks: int = 3
    headroom: float = 0.70
    up_after_s: float = 5.0
    cooldown_s: float = 5.0
    predict_fit: float = 0.90  # the step above must be predicted within 90% of the target
    memory_s: float = 60.0
    revert_s: float = 20.0  # a step down this soon after a step up undoes it (backoff)


@dataclass(frozen=True, slots=True)
class LoadSample:
    t_s: float  # monotonic seconds
    processing_p95_ms: float
    latency_p95_ms: float
    frames: int  # frames measured at the current step


def load_of(sample: LoadSample, quality: QualitySettings) -> tuple[float, str]:
    """(p95 / budget of the tightest target, what was measured against what)."""
    worst, text = 0.0, "no target"
    if quality.target_fps is not None:
        budget = 1000.0 / quality.target_fps
        worst = sample.processing_p95_ms / budget
        text = (
            f"processing p95 {sample.processing_p95_ms:.0f} ms vs {budget:.0f} ms "
            f"({quality.target_fps:g} fps)"
        )
    if quality.target_p95_ms is not None:
        ratio = sample.latency_p95_ms / quality.target_p95_ms
        if ratio >= worst:
            worst = ratio
            text = f"latency p95 {sample.latency_p95_ms:.0f} ms vs {quality.target_p95_ms:g} ms"
    return worst, text


@dataclass(frozen=True, slots=True)
class GovernorDecision:
    step: int
    name: str
    direction: Direction
    reason: str
    settings: EngineSettings


@dataclass(frozen=True, slots=True)
class GovernorStatus:
    active: bool  # a target is set and the governor is on
    step: int
    steps: int
    name: str
    reason: str
    load: float | None  # last p95 / target, None before the first check

    def text(self) -> str:
        if not self.active:
            return "quality: as set (no target)"
        return f"quality step {self.step}/{self.steps - 1}: {self.name} — {self.reason}"


class QualityGovernor:
    def __init__(self, user: EngineSettings, config: GovernorConfig | None = None) -> None:
        self.config = config or GovernorConfig()
        self._user = user
        self.ladder = build_ladder(user)
        self.step = 0
        self.reason = "measuring"
        self.load: float | None = None
        self._over = 0
        self._headroom_since: float | None = None
        self._last_down_s: float | None = None
        self._last_up: tuple[int, float] | None = None  # (step reached, when)
        # Step k → (load at k / load at k+1, when measured): what going back up costs.
        self._ratio: dict[int, tuple[float, float]] = {}
        self._pending: tuple[int, float] | None = None  # (left step, its load)
        self._backoff: dict[int, float] = {}

    @property
    def settings(self) -> EngineSettings:
        return self.ladder[self.step].settings

    @property
    def active(self) -> bool:
        q = self._user.quality
        return q.governor and q.has_target

    def status(self) -> GovernorStatus:
        name = self.ladder[self.step].name
        return GovernorStatus(
            self.active, self.step, len(self.ladder), name, self.reason, self.load
        )

    def set_user(self, user: EngineSettings) -> GovernorDecision | None:
        """New user settings. The step is kept while the ladder keeps its shape (a target
        or a slider changed); a different ladder (enhancer mode…) starts again at 0."""
        old_names = [s.name for s in self.ladder]
        self._user = user
        self.ladder = build_ladder(user)
        if [s.name for s in self.ladder] == old_names:
            return None
        changed = self.step != 0
        self._reset("settings changed")
        return self._decision("reset") if changed else None

    def _reset(self, reason: str) -> None:
        self.step = 0
        self.reason = reason
        self._over = 0
        self._headroom_since = None
        self._pending = None
        self._ratio.clear()
        self._backoff.clear()

    def _decision(self, direction: Direction) -> GovernorDecision:
        step = self.ladder[self.step]
        return GovernorDecision(self.step, step.name, direction, self.reason, step.settings)

    def update(self, sample: LoadSample) -> GovernorDecision | None:
        """One check; a decision when the step changes, else None."""
        if not self.active:
            self.load = None
            if self.step != 0:
                self._reset("no target")
                return self._decision("reset")
            self.reason = "no target"
            return None
        cfg = self.config
        if sample.frames < cfg.min_frames:
            return None
        load, measured = load_of(sample, self._user.quality)
        self.load = load
        if self._pending is not None:
            left, left_load = self._pending
            self._ratio[left] = (left_load / max(load, 1e-6), sample.t_s)
            self._pending = None
        if load > 1.0 + cfg.over_margin:
            return self._over_target(sample, load, measured)
        self._over = 0
        if load >= cfg.headroom or self.step == 0:
            self._headroom_since = None
            if self.step == 0:
                near = "within target" if load <= 1.0 else "near target (within the margin)"
                self.reason = f"{measured}: {near}"
            return None
        return self._headroom(sample, load, measured)

    def _over_target(
        self, sample: LoadSample, load: float, measured: str
    ) -> GovernorDecision | None:
        """Over target: step down after `down_checks` checks in a row, if a step is left."""
        self._headroom_since = None
        self._over += 1
        if self._over >= self.config.down_checks and self.step + 1 < len(self.ladder):
            return self._down(sample.t_s, load, f"{measured}: over target")
        if self.step + 1 >= len(self.ladder):
            self.reason = f"{measured}: over target at the lowest step"
        return None

    def _headroom(self, sample: LoadSample, load: float, measured: str) -> GovernorDecision | None:
        """Below a stepped-down target: step up once the headroom lasted, the cooldown
        passed and the step above is predicted to fit."""
        cfg = self.config
        if self._headroom_since is None:
            self._headroom_since = sample.t_s
        if sample.t_s - self._headroom_since < cfg.up_after_s:
            return None
        if self._last_down_s is not None and sample.t_s - self._last_down_s < cfg.cooldown_s:
            return None
        predicted = self._predict(self.step - 1, load, sample.t_s)
        if predicted is not None and predicted > cfg.predict_fit:
            upper = self.ladder[self.step - 1].name
            self.reason = f"{measured}: headroom, but {upper!r} would need ~{predicted:.0%}"
            return None
        self._last_up = (self.step - 1, sample.t_s)
        self.step -= 1
        self._headroom_since = None
        self.reason = f"{measured}: headroom for {cfg.up_after_s:g} s, stepped up"
        return self._decision("up")

    def _down(self, t_s: float, load: float, why: str) -> GovernorDecision:
        cfg = self.config
        if self._last_up is not None:
            reached, when = self._last_up
            if reached == self.step and t_s - when < cfg.revert_s:
                self._backoff[self.step] = min(_MAX_BACKOFF, self._backoff.get(self.step, 1.0) * 2)
        self._pending = (self.step, load)
        self._last_down_s = t_s
        self.step += 1
        self._over = 0
        self.reason = f"{why}, stepped down"
        return self._decision("down")

    def _predict(self, upper: int, load: float, t_s: float) -> float | None:
        """Expected load one step up, from that step's measured relative cost."""
        known = self._ratio.get(upper)
        if known is None:
            return None
        ratio, when = known
        if t_s - when > self.config.memory_s * self._backoff.get(upper, 1.0):
            return None  # old news: the load may have changed, try it
        return load * ratio


class EngineGovernor:
    """An Engine's governor: per-frame times in, effective settings out (thread-safe)."""

    def __init__(
        self,
        config: GovernorConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or GovernorConfig()
        self._clock = clock
        self._lock = threading.Lock()
        self._governor: QualityGovernor | None = None
        self._processing: deque[float] = deque(maxlen=self.config.window_frames)
        self._latency: deque[float] = deque(maxlen=self.config.window_frames)
        self._next_check_s = 0.0
        self.decisions: deque[GovernorDecision] = deque(maxlen=64)

    def derive(self, user: EngineSettings) -> EngineSettings:
        """The settings the stages should run with for these user settings."""
        with self._lock:
            if self._governor is None:
                self._governor = QualityGovernor(user, self.config)
            else:
                decision = self._governor.set_user(user)
                if decision is not None:
                    self._record(decision)
            return self._governor.settings

    def observe(self, packet: FramePacket) -> bool:
        """Called on the engine thread after each publish; True when the step changed
        (the engine then derives its effective settings again)."""
        processing = packet.processing_ms
        latency = (packet.published_ns - packet.capture_ns) / 1e6
        now = self._clock()
        with self._lock:
            governor = self._governor
            if governor is None:
                return False
            self._processing.append(processing)
            self._latency.append(latency)
            if now < self._next_check_s:
                return False
            self._next_check_s = now + self.config.check_interval_s
            frames = len(self._processing)
            sample = LoadSample(
                now,
                float(np.percentile(self._processing, 95)),
                float(np.percentile(self._latency, 95)),
                frames,
            )
            decision = governor.update(sample)
            if decision is None:
                return False
            self._record(decision)
            return True

    def _record(self, decision: GovernorDecision) -> None:
        # Frames measured at the old step say nothing about the new one.
        self._processing.clear()
        self._latency.clear()
        self.decisions.append(decision)
        log.info(
            "quality %s to step %d (%s): %s",
            decision.direction,
            decision.step,
            decision.name,
            decision.reason,
        )

    def status(self) -> GovernorStatus:
        with self._lock:
            if self._governor is None:
                return GovernorStatus(False, 0, 1, "as set", "no target", None)
            return self._governor.status()
