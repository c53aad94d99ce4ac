"""The live session: one shutdown order for every front-end, sources switched while the
engine runs, stage lifecycles and outputs owned by the session."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.threads import Worker
from engine.outputs.output_set import OUTPUT_ERRORS, OutputConfig, RecordConfig
from engine.outputs.stream import StreamConfig
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from engine.stages.base import Stage
from tests.engine.stages.passthrough import PassThrough

SMALL = (96, 64)


class Closing(Stage):
    name: ClassVar[str] = "closing"

    def __init__(self, log: list[str] | None = None) -> None:
        self.log = log if log is not None else []

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        return packet

    def close(self, timeout: float = 2.0) -> None:
        self.log.append("stages")


class Idle(Worker):
    def _run(self) -> None:
        while not self.wait(0.05):
            pass


def record_stops(log: list[str], name: str, worker: Worker) -> None:
    stop = worker.stop

    def logged(timeout: float = 2.0) -> bool:
        log.append(name)
        return stop(timeout)

    worker.stop = logged  # type: ignore[method-assign]


def test_stop_runs_the_documented_order(tmp_path: Path) -> None:
    log: list[str] = []
    engine = Engine([Closing(log)])
    sink = Idle("sink-idle")
    session = LiveSession(engine, DemoSource(size=SMALL), [sink])
    outputs = session.open_outputs(OutputConfig(record=RecordConfig(tmp_path / "out.mkv")))
    assert session.source is not None
    record_stops(log, "source", session.source)
    record_stops(log, "engine", engine)
    record_stops(log, "outputs", outputs.delay)
    record_stops(log, "sinks", sink)
    session.start()
    assert session.wait_frames(5, timeout=10)
    threads = session.threads()
    assert all(t.alive for t in threads) and len(threads) == 5  # + delay line, recorder
    assert session.stop(timeout=5)
    assert log == ["source", "engine", "outputs", "sinks", "stages"]
    assert not any(t.alive for t in threads)
    assert session.error is None


def test_switching_the_source_keeps_the_engine_and_stops_the_old_source_first() -> None:
    session = LiveSession(Engine([PassThrough()]))
    outputs = session.open_outputs()
    assert outputs.input_size == (1280, 720)  # until a source says its own
    first = DemoSource(size=SMALL)
    session.switch_source(first)
    assert first.info is not None and not first.alive  # opened, not started: not running
    assert outputs.input_size == SMALL
    session.start()
    try:
        assert session.wait_frames(3, timeout=10) and first.alive
        second = DemoSource(size=(128, 72))
        session.switch_source(second)
        assert not first.alive and second.alive and session.engine.alive
        assert session.switches == 2 and outputs.input_size == (128, 72)
        published = session.engine.frames_published
        assert session.wait_frames(published + 3, timeout=10)
    finally:
        assert session.stop(timeout=5)


def test_replaced_stages_are_closed_and_the_rest_at_stop() -> None:
    kept, dropped = Closing(), Closing()
    session = LiveSession(Engine([kept, dropped]))
    session.set_stages([kept])
    assert (kept.log, dropped.log) == ([], ["stages"])
    assert session.stop()
    assert kept.log == ["stages"]


def test_a_session_without_a_source_only_prepares_and_closes() -> None:
    stage = Closing()
    session = LiveSession(Engine([stage]))
    assert session.prepare_stages() == {}
    assert not session.wait_frames(1, timeout=0.1)
    assert not session.wait_source_drained(timeout=0.1)
    assert session.stop() and stage.log == ["stages"]


def test_a_failing_output_closes_the_ones_already_opened(tmp_path: Path) -> None:
    session = LiveSession(Engine([PassThrough()]), DemoSource(size=SMALL))
    bad = RecordConfig(tmp_path / "out.unknown")  # no writer for that container
    with pytest.raises(OUTPUT_ERRORS, match=r"out\.unknown"):
        session.open_outputs(OutputConfig(stream=StreamConfig(port=0), record=bad))
    outputs = session.outputs
    assert outputs is not None and outputs.stream is None and outputs.recorder is None
    assert session.stop()
