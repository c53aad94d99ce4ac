"""`fusecam bench`: run the engine flat out and paced like a 30 fps camera, and report."""

from __future__ import annotations

import resource
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, EnhancerMode
from engine.core.stats import StatsSnapshot, Summary
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources.base import FrameSource
from engine.stages.base import Stage
from engine.tools.bench_frames import WORST_FRAMES, FrameLog
from engine.tools.profile_report import format_profile, profile_rows
from engine.watermark.embed import Watermarker

SourceFactory = Callable[[bool], FrameSource]  # argument: lockstep (max mode)
StagesFactory = Callable[[], Sequence[Stage]]

PACED_FPS = 30.0
ENHANCER_MODES: tuple[EnhancerMode, ...] = ("off", "builtin", "neural")


@dataclass(frozen=True, slots=True)
class BenchConfig:
    frames: int = 200
    warmup: int = 10
    settings: EngineSettings = field(default_factory=EngineSettings)
    # Enhancer modes to measure one after another (max + paced each); () = as in settings.
    enhancers: tuple[EnhancerMode, ...] = ()
    # Sub-step timing (engine.profile): each run's report gains a "profile" table.
    profile: bool = False


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def with_enhancer(settings: EngineSettings, mode: EnhancerMode) -> EngineSettings:
    """The settings with another enhancer mode (validated by EnhancerSettings)."""
    return replace(settings, enhancer=replace(settings.enhancer, mode=mode))


def _run_once(
    mode: str,
    make_source: SourceFactory,
    make_stages: StagesFactory,
    config: BenchConfig,
    enhancer: EnhancerMode | None = None,
) -> dict[str, Any]:
    settings = config.settings if enhancer is None else with_enhancer(config.settings, enhancer)
    engine = Engine(make_stages(), settings, stats_window=config.frames)
    engine.profile = config.profile
    frame_log = FrameLog()
    source = make_source(mode == "max")
    source.max_frames = config.frames + config.warmup
    source.on_end = frame_log.thread_ending  # on the capture thread, as the file drains
    session = LiveSession(engine, source)
    unavailable = session.prepare_stages()
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
            frame_log.start()
            warm.set()

    # Listeners run in order. The log listens first: the last warm-up frame (which
    # starts it) is not recorded; nor is that frame's mark counted.
    engine.add_listener(frame_log)
    mark_ms = _time_watermark(engine, warm)
    engine.add_listener(end_warmup)
    frame_log.attach_gc()
    session.start()
    try:
        warm.wait(timeout=120)
        session.wait_source_drained(timeout=max(60.0, config.frames))
        source.join(timeout=10)  # "finished" is set just before its on_end runs
        frame_log.stop()
        elapsed = time.monotonic() - mark.get("started", time.monotonic())
    finally:
        session.stop()
        frame_log.detach_gc()
    drops_before = int(mark.get("drops", engine.input.drops))
    snap = engine.stats.snapshot()
    assert source.info is not None
    run: dict[str, Any] = {
        "mode": mode,
        "enhancer": settings.enhancer.mode,
        "size": [source.info.width, source.info.height],
        "zoom": source.zoom,
        "frames": snap.frames,
        "fps": round(snap.frames / elapsed, 2) if elapsed > 0 else 0.0,
        "dropped": engine.input.drops - drops_before,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "providers": session.providers(),
        "stages": {
            **stage_rows(snap, [stage.name for stage in engine.stages]),
            "watermark": {**Summary.of(mark_ms).as_dict(), "ran": len(mark_ms)},
        },
        "processing": snap.processing.as_dict(),
        "end_to_end": snap.end_to_end.as_dict(),
        "faces": settings.swap.face_selection,
        "faces_per_frame": _mean_faces(frame_log),
        # Process CPU time (all threads: capture decode, engine, onnxruntime) per frame.
        "cpu_ms_per_frame": round(frame_log.cpu_s * 1000 / snap.frames, 3) if snap.frames else 0.0,
        "thread_cpu_ms_per_frame": frame_log.thread_ms_per_frame(),
        "worst_frames": frame_log.worst(WORST_FRAMES),
        "processing_cpu": frame_log.processing_cpu(),
        "gc": frame_log.gc_report(),
    }
    if mode == "paced" and elapsed > 0:
        # Paced at the input's frame rate: the CPU time per second of stream is the share
        # of one core that the app takes from everything else (OBS's encoder, the game).
        run["cpu_share_pct"] = round(frame_log.cpu_s / elapsed * 100, 1)
        run["input_fps"] = round(source.info.fps, 3)
    if config.profile:
        run["profile"] = profile_rows(snap, [stage.name for stage in engine.stages])
    if settings.enhancer.mode == "neural":
        # What really ran: without a usable model the live selector falls back.
        reason = unavailable.get("enhancer")
        run["enhancer_used"] = "builtin" if reason else "neural"
        run["enhancer_fallback"] = reason
    return run


def _time_watermark(engine: Engine, warm: threading.Event) -> list[float]:
    """Every measured frame marked as the output guard marks it (on the engine thread,
    after the publish): its time is the "watermark" row, beside the stages."""
    marker = Watermarker()
    times: list[float] = []

    def mark(packet: FramePacket) -> None:
        started = time.perf_counter_ns()
        marker.mark(packet.result)
        if warm.is_set():
            times.append((time.perf_counter_ns() - started) / 1e6)

    engine.add_listener(mark)
    return times


def _mean_faces(frame_log: FrameLog) -> float:
    records = frame_log.records
    return round(sum(r.faces for r in records) / len(records), 2) if records else 0.0


def stage_rows(snap: StatsSnapshot, order: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per stage in pipeline order: p50/p95/max over the frames it ran in, how many that
    was, and why it skipped the others ({"tracking": 290}): a stage that did not run
    reads as skipped, not as "0.0 ms"."""
    rows: dict[str, dict[str, Any]] = {}
    for name in order:
        summary, skipped = snap.stages.get(name), snap.skipped.get(name)
        if summary is None and skipped is None:
            continue
        row: dict[str, Any] = summary.as_dict() if summary is not None else {}
        row["ran"] = snap.totals[name].frames if name in snap.totals else 0
        if skipped:
            row["skipped"] = dict(skipped)
        rows[name] = row
    return rows


def run_bench(
    make_source: SourceFactory, make_stages: StagesFactory, config: BenchConfig
) -> dict[str, Any]:
    """Both runs (max, paced) per enhancer mode, in this one process."""
    if not config.enhancers:
        runs = [_run_once(mode, make_source, make_stages, config) for mode in ("max", "paced")]
        return {"runs": runs}
    runs = []
    for enhancer in config.enhancers:
        for mode in ("max", "paced"):
            runs.append(_run_once(mode, make_source, make_stages, config, enhancer))
    report: dict[str, Any] = {"runs": runs}
    if len(config.enhancers) > 1 and "off" in config.enhancers:
        report["enhancer_comparison"] = compare_enhancers(runs)
    return report


def compare_enhancers(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each mode's lock-step (max) numbers beside "off" from the same process: what the
    enhancer costs on this machine, as ratios that do not depend on its absolute speed."""
    by_mode = {r["enhancer"]: r for r in runs if r["mode"] == "max"}
    off = by_mode["off"]

    def ratio(a: float, b: float) -> float:
        return round(a / b, 3) if b > 0 else 0.0

    rows = []
    for name, run in by_mode.items():
        proc, base = run["processing"], off["processing"]
        rows.append(
            {
                "enhancer": name,
                "enhancer_used": run.get("enhancer_used", name),
                "fps": run["fps"],
                "fps_vs_off": ratio(run["fps"], off["fps"]),
                "processing_p50_ms": proc["p50_ms"],
                "p50_vs_off": ratio(proc["p50_ms"], base["p50_ms"]),
                "processing_p95_ms": proc["p95_ms"],
                "p95_vs_off": ratio(proc["p95_ms"], base["p95_ms"]),
                "enhancer_p50_ms": run["stages"].get("enhancer", {}).get("p50_ms", 0.0),
            }
        )
    return rows


def format_table(report: dict[str, Any]) -> str:
    lines = []
    for run in report["runs"]:
        w, h = run["size"]
        zoom = f"  zoom {run['zoom']:g}" if run.get("zoom", 1.0) != 1.0 else ""
        lines.append(
            f"mode {run['mode']:<5}  enhancer {run.get('enhancer', '-'):<7}  "
            f"{w}x{h}{zoom}  frames {run['frames']}  fps {run['fps']:.1f}  "
            f"dropped {run['dropped']}  peak RSS {run['peak_rss_mb']:.0f} MB  "
            f"providers {','.join(run['providers']) or '-'}"
        )
        lines.append(f"  {'stage':<16}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}  ran")
        for name, s in run["stages"].items():
            lines.append(_stage_line(name, s, run["frames"]))
        for name in ("processing", "end_to_end"):
            s = run[name]
            lines.append(
                f"  {name:<16}{s['p50_ms']:>10.2f}{s['p95_ms']:>10.2f}{s['max_ms']:>10.2f}"
            )
        lines += _cpu_and_worst_lines(run)
        if run.get("enhancer_fallback"):
            reason = run["enhancer_fallback"]
            lines.append(f"  neural enhancer unavailable, built-in measured: {reason}")
        if "profile" in run:
            lines += format_profile(run["profile"], run["frames"])
    if "enhancer_comparison" in report:
        lines += _comparison_table(report["enhancer_comparison"])
    return "\n".join(lines)


def _cpu_and_worst_lines(run: dict[str, Any]) -> list[str]:
    cpu = f"  cpu {run['cpu_ms_per_frame']:.2f} ms/frame (process, all threads)"
    if "cpu_share_pct" in run:
        cpu += f"  = {run['cpu_share_pct']:.1f} % of one core at {run['input_fps']:g} fps"
    gc = run["gc"]
    cpu += f"  faces {run['faces']} ({run['faces_per_frame']:g}/frame)"
    cpu += f"  gc {gc['collections']}× max {gc['max_ms']:.1f} ms"
    lines = [cpu]
    if run.get("thread_cpu_ms_per_frame"):
        threads = run["thread_cpu_ms_per_frame"].items()
        lines.append("  cpu by thread (ms/frame): " + ", ".join(f"{n} {ms:g}" for n, ms in threads))
    if run.get("processing_cpu"):
        c = run["processing_cpu"]
        lines.append(
            f"  processing cpu  p50 {c['p50_ms']:.2f}  p95 {c['p95_ms']:.2f}  max {c['max_ms']:.2f}"
            "  (engine thread's CPU time per frame)"
        )
    lines.append(
        "  worst frames (processing ms [its CPU ms]: the stage / step most over its typical"
    )
    lines.append("  time; much less CPU than wall time means other programs held the core)")
    for w in run["worst_frames"]:
        cause = f"[cpu {w['processing_cpu_ms']:.1f}]  " if "processing_cpu_ms" in w else ""
        if "stage" in w:
            cause += f"{w['stage']} {w['stage_ms']:.1f} (typ {w['stage_typical_ms']:.1f})"
        if "step" in w:
            cause += f", {w['step']} {w['step_ms']:.1f} (typ {w['step_typical_ms']:.1f})"
        skipped = ", ".join(f"{k}: {v}" for k, v in w.get("skipped", {}).items())
        lines.append(
            f"    #{w['frame_id']:<6}{w['processing_ms']:>8.2f}  e2e {w['end_to_end_ms']:.1f}  "
            f"{cause}" + (f"  [{skipped}]" if skipped else "")
        )
    return lines


def _stage_line(name: str, s: dict[str, Any], frames: int) -> str:
    """A stage's times over the frames it ran in; one that never ran shows only why."""
    skipped = ", ".join(f"{reason} {n}" for reason, n in s.get("skipped", {}).items())
    if not s.get("ran"):
        return f"  {name:<16}{'—':>10}{'—':>10}{'—':>10}  0/{frames}  ({skipped})"
    ran = f"{s['ran']}/{frames}" + (f"  ({skipped})" if skipped else "")
    return f"  {name:<16}{s['p50_ms']:>10.2f}{s['p95_ms']:>10.2f}{s['max_ms']:>10.2f}  {ran}"


def _comparison_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "enhancer cost (lock-step runs, this process; ×off = relative to enhancer off)",
        f"  {'enhancer':<18}{'fps':>8}{'×off':>7}{'proc p50':>10}{'×off':>7}"
        f"{'proc p95':>10}{'×off':>7}{'stage p50':>11}",
    ]
    for r in rows:
        label = r["enhancer"]
        if r["enhancer_used"] != label:
            label = f"{label}→{r['enhancer_used']}"
        lines.append(
            f"  {label:<18}{r['fps']:>8.1f}{r['fps_vs_off']:>7.2f}"
            f"{r['processing_p50_ms']:>10.2f}{r['p50_vs_off']:>7.2f}"
            f"{r['processing_p95_ms']:>10.2f}{r['p95_vs_off']:>7.2f}"
            f"{r['enhancer_p50_ms']:>11.2f}"
        )
    return lines
