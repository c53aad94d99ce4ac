"""`fusecam bench`: run the engine flat out and paced like a 30 fps camera, and report."""

from __future__ import annotations

import resource
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.factory import providers_of
from engine.packet import FramePacket
from engine.pipeline import Engine
from engine.session import Session
from engine.settings import EngineSettings
from engine.sources.base import FrameSource
from engine.stages.base import Stage

SourceFactory = Callable[[bool], FrameSource]  # argument: lockstep (max mode)
StagesFactory = Callable[[], Sequence[Stage]]

PACED_FPS = 30.0


@dataclass(frozen=True, slots=True)
class BenchConfig:
    frames: int = 200
    warmup: int = 10
    settings: EngineSettings = EngineSettings()


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _run_once(
    mode: str, make_source: SourceFactory, make_stages: StagesFactory, config: BenchConfig
) -> dict[str, Any]:
    stages = make_stages()
    engine = Engine(stages, config.settings, stats_window=config.frames)
    source = make_source(mode == "max")
    total = config.frames + config.warmup
    source.max_frames = total
    session = Session(source, engine)
    # Warm-up frames (first inferences, caches) are processed but not counted. The reset
    # runs on the engine thread right after the last warm-up frame: resetting from here
    # instead would race the engine and lose a varying number of measured frames.
    warm = threading.Event()
    mark: dict[str, float] = {}

    def end_warmup(_packet: FramePacket) -> None:
        if not warm.is_set() and engine.frames_published >= config.warmup:
            engine.stats.reset()
            mark["drops"] = engine.input.drops
            mark["started"] = time.monotonic()
            warm.set()

    engine.add_listener(end_warmup)
    session.start()
    try:
        warm.wait(timeout=120)
        session.wait_source_drained(timeout=max(60.0, config.frames))
        elapsed = time.monotonic() - mark.get("started", time.monotonic())
    finally:
        session.stop()
    drops_before = int(mark.get("drops", engine.input.drops))
    snap = engine.stats.snapshot()
    assert source.info is not None
    return {
        "mode": mode,
        "size": [source.info.width, source.info.height],
        "frames": snap.frames,
        "fps": round(snap.frames / elapsed, 2) if elapsed > 0 else 0.0,
        "dropped": engine.input.drops - drops_before,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "providers": providers_of(stages),
        "stages": {name: s.as_dict() for name, s in snap.stages.items()},
        "processing": snap.processing.as_dict(),
        "end_to_end": snap.end_to_end.as_dict(),
        "counters": snap.info,
    }


def run_bench(
    make_source: SourceFactory, make_stages: StagesFactory, config: BenchConfig
) -> dict[str, Any]:
    runs = [_run_once(mode, make_source, make_stages, config) for mode in ("max", "paced")]
    return {"runs": runs}


def format_table(report: dict[str, Any]) -> str:
    lines = []
    for run in report["runs"]:
        w, h = run["size"]
        lines.append(
            f"mode {run['mode']:<5}  {w}x{h}  frames {run['frames']}  fps {run['fps']:.1f}  "
            f"dropped {run['dropped']}  peak RSS {run['peak_rss_mb']:.0f} MB  "
            f"providers {','.join(run['providers']) or '-'}"
        )
        lines.append(f"  {'stage':<16}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
        rows = [*run["stages"].items(), ("processing", run["processing"])]
        rows.append(("end_to_end", run["end_to_end"]))
        for name, s in rows:
            lines.append(f"  {name:<16}{s['p50_ms']:>10.2f}{s['p95_ms']:>10.2f}{s['max_ms']:>10.2f}")
    return "\n".join(lines)
