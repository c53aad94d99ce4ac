"""`fusecam run`: live processing without the GUI (an optional preview window aside)."""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time

from app.display import has_display
from app.sources import make_source
from engine.factory import build_stages
from engine.pipeline import Engine
from engine.session import Session
from engine.settings import EngineSettings
from engine.sinks.recorder import Recorder
from engine.stats import StatsSnapshot
from engine.threads import Worker

log = logging.getLogger(__name__)


def status_line(snap: StatsSnapshot) -> str:
    return (
        f"frames {snap.frames}  fps {snap.fps:5.1f}  "
        f"latency p50 {snap.end_to_end.p50_ms:5.1f} ms  p95 {snap.end_to_end.p95_ms:5.1f} ms  "
        f"processing p95 {snap.processing.p95_ms:5.1f} ms  dropped {snap.dropped}"
    )


def run(args: argparse.Namespace, settings: EngineSettings) -> int:
    errors: list[str] = []
    lock = threading.Lock()

    def on_error(where: str, exc: BaseException) -> None:
        with lock:
            errors.append(f"{where}: {exc}")
        print(f"fusecam: {where}: {exc}", file=sys.stderr)

    source = make_source(args, size=args.size, loop=args.frames is not None)
    source.on_error = on_error
    source.max_frames = args.frames
    info = source.open()
    stages = build_stages(settings, args.source)
    engine = Engine(stages, settings, on_error=on_error)
    sinks: list[Worker] = []
    if args.record is not None:
        sinks.append(Recorder(engine, args.record, info.fps, on_error=on_error))
    session = Session(source, engine, sinks)
    print(
        f"fusecam: input {info.kind} {info.name} {info.width}x{info.height} @ {info.fps:.1f} fps",
        file=sys.stderr,
    )
    show_preview = not args.no_preview
    if show_preview and not has_display():
        print("fusecam: no display found; running without a preview window", file=sys.stderr)
        show_preview = False
    session.start()
    try:
        if show_preview:
            from app.preview import run_preview  # Qt only when a window is really wanted

            run_preview(session)
        else:
            _wait(session, args.frames)
    except KeyboardInterrupt:
        pass
    finally:
        session.stop()
    print(f"fusecam: {status_line(engine.stats.snapshot())}", file=sys.stderr)
    if args.record is not None:
        recorder = sinks[0]
        assert isinstance(recorder, Recorder)
        print(f"fusecam: recorded {recorder.frames} frames to {args.record}", file=sys.stderr)
    fatal = engine.error or source.error or next((s.error for s in sinks if s.error), None)
    return 1 if fatal is not None else 0


def _wait(session: Session, frames: int | None) -> None:
    last_report = time.monotonic()
    while True:
        if frames is not None and session.engine.stats.frames >= frames:
            return
        if session.source.finished and session.wait_source_drained(timeout=5.0):
            return
        if session.engine.error is not None or session.source.error is not None:
            return
        time.sleep(0.05)
        if time.monotonic() - last_report >= 1.0:
            last_report = time.monotonic()
            print(f"fusecam: {status_line(session.engine.stats.snapshot())}", file=sys.stderr)
