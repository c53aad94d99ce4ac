"""Sessions and workers shut down cleanly: no thread left behind, errors reported, no hangs."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from engine.core.packet import FramePacket
from engine.core.threads import Worker
from engine.core.types import Frame
from engine.outputs.base import LatestSink
from engine.outputs.recorder import Recorder
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from engine.sources.base import FrameSource, SourceInfo
from tests.engine.stages.passthrough import PassThrough

ENGINE_THREAD_PREFIXES = ("source-", "engine", "sink-")


def engine_threads(exclude: set[threading.Thread]) -> list[str]:
    """Names of live engine threads not in `exclude` (threads from before the test)."""
    return [
        t.name
        for t in threading.enumerate()
        if t not in exclude and t.is_alive() and t.name.startswith(ENGINE_THREAD_PREFIXES)
    ]


class CountingSink(LatestSink):
    """A real LatestSink that only counts (the preview/virtual-camera path, minus a device)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__("sink-counter", engine)
        self.closed = False

    def consume(self, packet: FramePacket) -> None:
        assert not packet.result.flags.writeable

    def close(self) -> None:
        self.closed = True


def test_session_stop_leaves_no_engine_thread_alive(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    source = DemoSource(size=(160, 90))
    engine = Engine([PassThrough()])
    recorder = Recorder(engine, tmp_path / "out.mp4", fps=30.0)
    counter = CountingSink(engine)
    session = LiveSession(engine, source, [recorder, counter])
    session.start()
    try:
        assert session.wait_frames(5, timeout=10)
        running = engine_threads(before)
        # The check below only means something if these were really running.
        assert sorted(running) == ["engine", "sink-counter", "sink-recorder", "source-demo"]
    finally:
        stopped = session.stop(timeout=5)
    assert stopped
    assert engine_threads(before) == []
    assert counter.closed and counter.frames > 0
    assert recorder.frames > 0
    for worker in (source, engine, recorder, counter):
        assert worker.error is None, worker.name
    # A second stop is harmless: nothing is left to wait for.
    assert session.stop(timeout=5)


def test_session_stop_does_not_hang_on_a_lockstep_source() -> None:
    """A lock-step source waits for the engine to take each frame; stopping must free it."""
    before = set(threading.enumerate())
    source = DemoSource(size=(64, 36), realtime=False, lockstep=True)
    engine = Engine([PassThrough()])
    session = LiveSession(engine, source)
    session.start()
    assert session.wait_frames(3, timeout=10)
    assert session.stop(timeout=5)
    assert engine_threads(before) == []
    assert source.finished


def test_stopping_a_session_that_never_started_is_harmless() -> None:
    session = LiveSession(Engine([PassThrough()]), DemoSource(size=(64, 36)))
    assert session.stop(timeout=1)


class Exploding(Worker):
    def _run(self) -> None:
        raise RuntimeError("boom")


def test_worker_exception_is_reported_and_stop_does_not_hang() -> None:
    reports: list[tuple[str, BaseException]] = []
    worker = Exploding("sink-exploding", on_error=lambda where, exc: reports.append((where, exc)))
    worker.start()
    worker.join(5)
    assert not worker.alive
    assert isinstance(worker.error, RuntimeError) and str(worker.error) == "boom"
    assert len(reports) == 1
    assert reports[0][0] == "sink-exploding" and reports[0][1] is worker.error
    assert worker.stop(timeout=5)


class Sleeper(Worker):
    """Blocks in `wait` (the way workers idle) until asked to stop."""

    def _run(self) -> None:
        while not self.wait(60):
            pass


def test_worker_stop_wakes_a_waiting_thread_and_is_idempotent() -> None:
    worker = Sleeper("sink-sleeper")
    worker.start()
    started_alive = worker.alive
    assert started_alive
    assert threading.current_thread().name != worker.name
    assert any(t.name == "sink-sleeper" for t in threading.enumerate())
    # Unwoken, the worker would sit in wait(60) past the timeout and stop would say so.
    assert worker.stop(timeout=5)
    assert not worker.alive and worker.error is None
    assert worker.stop(timeout=5)


def test_worker_stop_reports_a_thread_that_does_not_end() -> None:
    release = threading.Event()

    class Stubborn(Worker):
        def _run(self) -> None:
            release.wait(10)  # ignores `stopping` on purpose

    worker = Stubborn("sink-stubborn")
    worker.start()
    try:
        assert worker.stop(timeout=0.1) is False
    finally:
        release.set()
        worker.join(5)
    assert not worker.alive


class BrokenSource(FrameSource):
    """A source whose device fails after two frames."""

    kind = "broken"

    def _open(self) -> SourceInfo:
        return SourceInfo(self.kind, "broken", 8, 8, 30.0)

    def _read(self) -> Frame | None:
        if self.frames_read >= 2:
            raise OSError("device unplugged")
        return np.zeros((8, 8, 3), np.uint8)


def test_a_failing_source_is_reported_and_the_session_still_stops() -> None:
    before = set(threading.enumerate())
    reports: list[str] = []
    source = BrokenSource("broken", realtime=False, on_error=lambda w, e: reports.append(w))
    engine = Engine([PassThrough()])
    session = LiveSession(engine, source)
    session.start()
    assert session.wait_frames(10, timeout=5) is False  # gives up on the source error
    source.join(5)  # `error` is set just before the callback runs
    assert isinstance(source.error, OSError)
    assert reports == ["source-broken"]
    assert session.stop(timeout=5)
    assert engine_threads(before) == []
