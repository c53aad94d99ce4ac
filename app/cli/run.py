"""`fusecam run`: live processing without the GUI (an optional preview window aside)."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import threading
import time
from pathlib import Path

from app import activity
from app.cli.inputs import add_input_options, make_source, parse_size
from app.cli.options import (
    Subparsers,
    add_quality_options,
    add_source_option,
    fps,
    int_in,
    positive,
    with_quality_options,
)
from app.cli.run_settings import add_run_settings_options, load_run_settings, with_run_sources
from app.cli.signals import stop_requests
from app.cli.status import StatusLine
from app.gui.display import has_display
from engine.core.atomic import OutputPathError, check_output_path
from engine.core.settings import EngineSettings
from engine.core.stats import StatsSnapshot
from engine.outputs.delay import MAX_DELAY_MS
from engine.outputs.output_set import OUTPUT_ERRORS, OutputConfig, OutputSet, RecordConfig
from engine.outputs.stream import StreamConfig, StreamError, parse_endpoint
from engine.outputs.virtualcam import VirtualCamConfig
from engine.runtime.factory import build_stages, wait_for_face_models
from engine.runtime.governor import GovernorStatus
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources.camera import CameraSource
from engine.swap.library import SourceLibrary

log = logging.getLogger(__name__)

# A source that delivers nothing new for this long ends the run (a camera that was
# lost says so itself and keeps retrying: unplugging one is not an end).
STALL_S = 10.0


def status_line(snap: StatsSnapshot, governor: GovernorStatus | None = None) -> str:
    line = (
        f"frames {snap.frames}  fps {snap.fps:5.1f}  "
        f"latency p50 {snap.end_to_end.p50_ms:5.1f} ms  p95 {snap.end_to_end.p95_ms:5.1f} ms  "
        f"processing p95 {snap.processing.p95_ms:5.1f} ms  dropped {snap.dropped}"
    )
    if governor is not None and governor.active:
        line += f"  {governor.text()}"
    return line


def summary_line(
    snap: StatsSnapshot, read: int, seconds: float, governor: GovernorStatus | None = None
) -> str:
    """The run's end: frames read and processed (the engine skips what arrives while it
    is busy: newest wins), over how long, the frame rate and latency it held, and the
    quality step it ended on."""
    step = f" · {governor.text()}" if governor is not None and governor.active else ""
    return (
        f"done: {read} input frames in {seconds:.1f} s, {snap.frames} processed, "
        f"{snap.dropped} skipped while the engine was busy (newest frame wins) · "
        f"{snap.fps:.1f} fps · latency p50 {snap.end_to_end.p50_ms:.1f} ms, "
        f"p95 {snap.end_to_end.p95_ms:.1f} ms{step}"
    )


class OutputUsageError(ValueError):
    """Output options that make no sense together."""


_SETUP_ERRORS: tuple[type[Exception], ...] = (OutputUsageError, OutputPathError, *OUTPUT_ERRORS)


def _endpoint(text: str) -> tuple[str, int]:
    try:
        return parse_endpoint(text)
    except StreamError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(sub: Subparsers) -> None:
    run = sub.add_parser("run", help="headless live processing")
    add_source_option(run, "source face image (default: a bundled sample face)")
    add_input_options(run)
    run.add_argument("--record", type=Path, metavar="OUT.mp4", help="record the output")
    run.add_argument(
        "--frames", type=positive, metavar="N", help="stop after N input frames (then a summary)"
    )
    run.add_argument("--size", type=parse_size, metavar="WxH", help="resize input frames")
    run.add_argument("--no-preview", action="store_true", help="no preview window")
    run.add_argument(
        "--debug-overlay",
        action="store_true",
        help="draw face boxes, the face mesh and pose axes on the output",
    )
    add_output_options(run)
    add_quality_options(run)
    add_run_settings_options(run)


def add_output_options(run: argparse.ArgumentParser) -> None:
    """`fusecam run` output flags (see docs/outputs.md); `--record` is defined beside."""
    group = run.add_argument_group("outputs")
    group.add_argument(
        "--virtual-cam",
        nargs="?",
        const="",
        metavar="DEVICE",
        help="send the output to a virtual camera (default device: the first "
        "free one; Linux: /dev/videoN or N, Windows: 'Unity Video Capture')",
    )
    group.add_argument(
        "--vcam-size",
        type=parse_size,
        metavar="WxH",
        help="virtual camera size (default: the input's)",
    )
    group.add_argument(
        "--vcam-fps",
        type=fps,
        metavar="N",
        help="virtual camera frame rate (default: the input's)",
    )
    group.add_argument(
        "--vcam-backend",
        metavar="NAME",
        help="v4l2loopback, obs or unitycapture (default: the first that works)",
    )
    group.add_argument(
        "--stream",
        type=_endpoint,
        metavar="[HOST:]PORT",
        help="serve the output at http://HOST:PORT/: /stream.ts (MPEG-TS with capture "
        "times, for OBS's Media Source), /stream.mjpg (browsers); host default "
        "127.0.0.1, any other host needs --token",
    )
    group.add_argument(
        "--token",
        metavar="T",
        help="access token the stream's clients must send (?token=T, "
        "'Authorization: Bearer T' or 'X-Fusecam-Token: T')",
    )
    group.add_argument(
        "--jpeg-quality",
        type=int_in(1, 100),
        default=80,
        metavar="Q",
        help="stream JPEG quality 1..100 (default 80)",
    )
    group.add_argument(
        "--record-side-by-side",
        action="store_true",
        help="record input and output side by side (with --record)",
    )
    group.add_argument(
        "--delay-ms",
        type=int_in(0, MAX_DELAY_MS),
        default=0,
        metavar="N",
        help="show each frame N ms after capture on every output (not the "
        "preview), to match audio delayed by N ms in OBS",
    )


def output_config(args: argparse.Namespace) -> OutputConfig:
    """The outputs `fusecam run` was asked for; raises on options that need another one."""
    needs = [
        (
            args.vcam_size or args.vcam_fps or args.vcam_backend,
            args.virtual_cam,
            "--vcam-size/--vcam-fps/--vcam-backend need --virtual-cam",
        ),
        (args.token, args.stream, "--token needs --stream"),
        (args.record_side_by_side, args.record, "--record-side-by-side needs --record"),
    ]
    for given, required, message in needs:
        if given and required is None:
            raise OutputUsageError(message)
    vcam = None
    if args.virtual_cam is not None:
        vcam = VirtualCamConfig(
            size=args.vcam_size,
            fps=args.vcam_fps,
            device=args.virtual_cam or None,
            backend=args.vcam_backend,
        )
    stream = None
    if args.stream is not None:
        host, port = args.stream
        stream = StreamConfig(host=host, port=port, token=args.token, quality=args.jpeg_quality)
    record = None
    if args.record is not None:
        inputs = [("source photo", face) for face in args.source or ()]
        if args.input is not None:
            inputs.append(("input", args.input))
        check_output_path(args.record, inputs)  # before anything opens, let alone writes
        record = RecordConfig(Path(args.record), side_by_side=args.record_side_by_side)
    return OutputConfig(virtual_cam=vcam, stream=stream, record=record, delay_ms=args.delay_ms)


def describe_outputs(outputs: OutputSet) -> list[str]:
    lines = []
    if outputs.virtual_cam is not None and outputs.virtual_cam.info is not None:
        lines.append(f"virtual camera: {outputs.virtual_cam.info.describe()}")
    if outputs.stream is not None:
        server = outputs.stream
        lines.append(f"stream for OBS (Media Source, MPEG-TS): {server.ts_url}")
        lines.append(f"stream for browsers (MJPEG): {server.url}  (how-to: {server.page_url})")
        if server.config.exposed:
            lines.append(
                f"stream: listening on {server.config.host}, reachable from the network; "
                "use this computer's address from other machines, and every client must "
                "send the token (?token=, 'Authorization: Bearer' or 'X-Fusecam-Token')"
            )
    if outputs.recorder is not None:
        side = " (input and output side by side)" if outputs.recorder.side_by_side else ""
        lines.append(f"recording to {outputs.recorder.path}{side}")
    if outputs.delay.delay_ms:
        lines.append(
            f"outputs show each frame {outputs.delay.delay_ms} ms after capture "
            "(delay the audio by the same amount; the preview stays live)"
        )
    return lines


def _report_error(where: str, exc: BaseException) -> None:
    """The session's error callback (any thread): one line each, the run goes on."""
    print(f"fusecam: {where}: {exc}", file=sys.stderr)


def run(args: argparse.Namespace, settings: EngineSettings) -> int:
    try:
        wanted = output_config(args)  # option mistakes fail before any device or model opens
    except _SETUP_ERRORS as exc:
        print(f"fusecam: error: {exc}", file=sys.stderr)
        return 2
    session, library = _open_session(args, settings)
    try:
        outputs = session.open_outputs(wanted)
    except _SETUP_ERRORS as exc:
        print(f"fusecam: error: {exc}", file=sys.stderr)
        return 2
    _record_activity(session, library, wanted)
    info = session.source.info if session.source is not None else None
    assert info is not None  # the session opened it
    print(
        f"fusecam: input {info.kind} {info.name} {info.width}x{info.height} @ {info.fps:.1f} fps",
        file=sys.stderr,
    )
    for line in describe_outputs(outputs):
        print(f"fusecam: {line}", file=sys.stderr)
    show_preview = not args.no_preview
    if show_preview and not has_display():
        print("fusecam: no display found; running without a preview window", file=sys.stderr)
        show_preview = False
    stop = threading.Event()  # Ctrl+C, SIGTERM, SIGHUP: stop in order, files finished
    problem = None
    with stop_requests(stop):
        started = time.monotonic()
        session.start()
        try:
            if show_preview:
                from app.gui.preview_window import run_preview  # Qt only when a window is wanted

                run_preview(session, stop.is_set)
            else:
                problem = _wait(session, args.frames, stop)
        finally:
            recorder, cam = outputs.recorder, outputs.virtual_cam
            session.stop()  # source, engine, then the outputs (DESIGN.md order)
    assert session.source is not None
    read, seconds = session.source.frames_read, time.monotonic() - started
    engine = session.engine
    summary = summary_line(engine.stats.snapshot(), read, seconds, engine.governor.status())
    print(f"fusecam: {summary}", file=sys.stderr)
    if cam is not None:
        print(f"fusecam: sent {cam.frames} frames to the virtual camera", file=sys.stderr)
    if recorder is not None and recorder.finished:
        print(
            f"fusecam: recorded {recorder.written} frames to {recorder.path} ({recorder.codec})",
            file=sys.stderr,
        )
    if problem is not None:
        print(f"fusecam: error: {problem}", file=sys.stderr)
    return 1 if session.error is not None or problem is not None else 0


def _record_activity(session: LiveSession, library: SourceLibrary, wanted: OutputConfig) -> None:
    settings = session.engine.settings
    outputs = {
        "virtual_camera": wanted.virtual_cam is not None,
        "stream": wanted.stream is not None,
        "record": wanted.record is not None,
    }
    files = [wanted.record.path] if wanted.record is not None else []
    activity.record(
        "run",
        activity.source_faces(settings, library),
        outputs,
        files,
        label=settings.output.synthetic_label,
    )


def _open_session(
    args: argparse.Namespace, settings: EngineSettings
) -> tuple[LiveSession, SourceLibrary]:
    """The input opened, the stages built, nothing started yet. The settings start from
    the app's saved ones unless --no-settings (app/cli/run_settings.py)."""
    saved = load_run_settings(args)
    settings = saved.settings
    if args.debug_overlay:
        settings = dataclasses.replace(
            settings, output=dataclasses.replace(settings.output, debug_overlay=True)
        )
    settings = with_quality_options(args, settings)
    source = make_source(args, size=args.size, loop=args.frames is not None)
    source.on_error = _report_error
    source.max_frames = args.frames
    source.open()
    library = SourceLibrary()
    settings, notes = with_run_sources(settings, library, args.source or (), saved.gallery)
    for note in (*saved.messages, *notes):
        print(f"fusecam: {note}", file=sys.stderr)
    stages = build_stages(settings, library=library)
    # Headless, nothing shows while the models load: the run starts once they are in
    # (loaded on their own thread), so its first frame is already swapped.
    wait_for_face_models(stages, settings)
    engine = Engine(stages, settings, on_error=_report_error)
    return LiveSession(engine, source, on_error=_report_error), library


def _wait(session: LiveSession, frames: int | None, stop: threading.Event) -> str | None:
    """Until `frames` were processed, the input ended, a part failed or a stop was
    asked for; returns why the run must end with an error, if it must."""
    source = session.source
    assert source is not None  # `fusecam run` always has one
    last_report = last_frame = time.monotonic()
    seen = source.frames_read
    status = StatusLine()  # one line updated in place on a terminal
    try:
        while not stop.wait(0.05):
            if frames is not None and session.engine.stats.frames >= frames:
                return None
            if source.finished and session.wait_source_drained(timeout=5.0):
                return None
            if session.engine.error is not None or source.error is not None:
                return None  # already reported through on_error
            now = time.monotonic()
            if source.frames_read != seen or (isinstance(source, CameraSource) and source.lost):
                seen, last_frame = source.frames_read, now
            elif now - last_frame > STALL_S:
                return f"the input delivered no frame for {STALL_S:.0f} s; stopping"
            if now - last_report >= 1.0:
                last_report = now
                engine = session.engine
                status.update(status_line(engine.stats.snapshot(), engine.governor.status()))
        return None
    finally:
        status.close()
