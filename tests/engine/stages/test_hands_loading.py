"""The hand stage loads its models like every other stage: on a background thread, while
the engine thread keeps passing frames through with the reason (turning hands on during
a live run must not stall the stream). The load is held on an event, so the test knows
the models are not ready however fast the machine is."""

from __future__ import annotations

import threading

import numpy as np

from engine.core.face_records import Face, FacePatch
from engine.core.packet import FramePacket, HandsSeen
from engine.core.settings import EngineSettings, ExecutionProvider, HandSettings
from engine.hands.occlusion import load_hand_tracker
from engine.hands.tracker import HandTracker
from engine.runtime.pipeline import Engine
from engine.stages.hands import HandStage

HANDS_ON = EngineSettings(hands=HandSettings(enabled=True, every_n=1))


def _packet(frame_id: int) -> FramePacket:
    frame = np.full((240, 320, 3), 90, np.uint8)
    patch = FacePatch(100, 60, np.zeros((120, 100, 3), np.float32), np.ones((120, 100), np.float32))
    return FramePacket(frame_id, 0, frame, faces=[Face(0, None, patch=patch)])


class HeldLoad:
    """The real bundled models, built only once `release` is set; records the thread."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.thread_name = ""

    def __call__(self, provider: ExecutionProvider) -> HandTracker:
        self.thread_name = threading.current_thread().name
        assert self.release.wait(30.0), "the test never released the load"
        return load_hand_tracker(provider)


def test_turning_hands_on_never_waits_for_their_models_on_the_engine_thread() -> None:
    load = HeldLoad()
    stage = HandStage("cpu", load)
    engine = Engine([stage], EngineSettings())
    assert engine.process(_packet(0)).skipped == {"hands": "off"}
    engine.set_settings(HANDS_ON)  # the user turns hands on mid-run
    held = [engine.process(_packet(i)) for i in range(1, 6)]  # the load is still held
    assert all(p.skipped == {"hands": "hands model is loading"} for p in held)
    assert all(p.hands is None for p in held)
    assert stage.providers() == ()  # nothing runs yet
    load.release.set()
    stage.prepare(HANDS_ON)  # waits for the same load (what offline runs do)
    assert load.thread_name == "load-hands" != threading.current_thread().name
    ready = engine.process(_packet(6))
    assert "hands" not in ready.skipped and ready.hands == HandsSeen(found=0, over_faces=0)
    tracker = stage.tracker
    assert tracker is not None and tracker.detections_run == 1
    models = (tracker.detector.model, tracker.landmarker.model)
    assert stage.providers() == tuple(dict.fromkeys(p for m in models for p in m.providers))
    stage.close()


def test_prepare_loads_hands_only_when_they_are_on() -> None:
    load = HeldLoad()
    load.release.set()
    stage = HandStage("cpu", load)
    stage.prepare(EngineSettings())
    assert stage.tracker is None and load.thread_name == ""
    stage.prepare(HANDS_ON)
    assert stage.tracker is not None
    stage.close()
