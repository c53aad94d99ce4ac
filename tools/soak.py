"""Soak test: a full live session for 10 minutes, reporting memory and threads every 30 s.

Not part of CI (it takes as long as it says). It runs what `fusecam run` runs — the
moving demo portrait through every face stage, with the bundled sample face — plus the
churn a long stream sees: the recording restarted every 20 s (each file finished,
checked and deleted), a viewer on the MJPEG stream that reconnects every 5 s, and a
snapshot fetched every second. Every 30 s it prints the process's resident memory and
its thread counts (Python threads, and the OS's, which include onnxruntime's and
OpenCV's pools).

Pass: resident memory grows by at most 20 MB after the first two minutes (allocators,
model caches and the JIT settle in those), and the thread counts after them stay flat.

Run: .venv/bin/python tools/soak.py                       # 10 minutes, 640x360
     .venv/bin/python tools/soak.py --minutes 1 --interval 10 --json soak.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from engine.core.settings import EngineSettings
from engine.outputs.output_set import OutputConfig, RecordConfig
from engine.outputs.stream import StreamConfig
from engine.runtime.factory import build_stages, with_sources
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from engine.swap.library import SourceLibrary

WARM_UP_S = 120.0
MAX_GROWTH_MB = 20.0


@dataclass(frozen=True)
class Sample:
    elapsed_s: float
    frames: int
    fps: float
    rss_mb: float
    python_threads: int
    os_threads: int
    recordings: int  # finished and checked so far


def rss_mb() -> float:
    """Resident memory now (Linux /proc); the peak where there is no /proc."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def os_threads() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
    except OSError:
        pass
    return threading.active_count()


class Churn:
    """What a long session sees besides frames, each on its own thread until `stop`."""

    def __init__(self, session: LiveSession, folder: Path) -> None:
        self.session = session
        self.folder = folder
        self.recordings = 0
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._records, name="soak-records", daemon=True),
            threading.Thread(target=self._viewer, name="soak-viewer", daemon=True),
            threading.Thread(target=self._snapshots, name="soak-snapshots", daemon=True),
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)

    def _records(self) -> None:
        outputs = self.session.outputs
        assert outputs is not None
        number = 0
        while not self._stop.wait(20.0):
            recorder = outputs.recorder
            outputs.stop_recording(5.0)
            if recorder is not None and recorder.finished:
                self.recordings += 1
                recorder.path.unlink()
            elif recorder is not None:
                self.errors.append(f"recording {recorder.path}: {recorder.error}")
            number += 1
            outputs.start_recording(RecordConfig(self.folder / f"soak-{number}.mp4"))

    def _viewer(self) -> None:
        outputs = self.session.outputs
        assert outputs is not None and outputs.stream is not None
        url = outputs.stream.url
        while not self._stop.is_set():
            deadline = time.monotonic() + 5.0
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    while time.monotonic() < deadline and not self._stop.is_set():
                        response.read(65536)
            except OSError as exc:
                self.errors.append(f"viewer: {exc}")
                self._stop.wait(1.0)

    def _snapshots(self) -> None:
        outputs = self.session.outputs
        assert outputs is not None and outputs.stream is not None
        url = outputs.stream.snapshot_url
        while not self._stop.wait(1.0):
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    response.read()
            except OSError as exc:
                self.errors.append(f"snapshot: {exc}")


def open_session(size: tuple[int, int], folder: Path) -> LiveSession:
    library = SourceLibrary()
    settings = with_sources(EngineSettings(), library)
    engine = Engine(build_stages(settings, library=library), settings)
    session = LiveSession(engine, DemoSource(size=size))
    session.prepare_stages()
    session.open_outputs(
        OutputConfig(
            stream=StreamConfig(port=0),
            record=RecordConfig(folder / "soak-0.mp4"),
        )
    )
    return session


def verdict(samples: list[Sample]) -> tuple[bool, str]:
    settled = [s for s in samples if s.elapsed_s >= WARM_UP_S]
    if len(settled) < 2:
        return False, f"run longer than {WARM_UP_S:.0f} s to judge"
    growth = max(s.rss_mb for s in settled) - settled[0].rss_mb
    python = {s.python_threads for s in settled}
    native = {s.os_threads for s in settled}
    # A stream client's or a snapshot's thread may be alive at the moment of a sample:
    # flat means no trend beyond that one or two.
    ok = growth <= MAX_GROWTH_MB and max(python) - min(python) <= 2
    ok = ok and max(native) - min(native) <= 2
    text = (
        f"RSS growth after {WARM_UP_S:.0f} s: {growth:+.1f} MB (limit {MAX_GROWTH_MB:.0f}); "
        f"Python threads {sorted(python)}; OS threads {min(native)}..{max(native)}"
    )
    return ok, text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--interval", type=float, default=30.0, help="seconds between reports")
    parser.add_argument("--size", default="640x360", help="demo frame size, WxH")
    parser.add_argument("--json", type=Path, help="write the samples and the verdict here")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    samples: list[Sample] = []
    with tempfile.TemporaryDirectory(prefix="fusecam-soak-") as folder:
        session = open_session((width, height), Path(folder))
        churn = Churn(session, Path(folder))
        session.start()
        churn.start()
        started = time.monotonic()
        print("  t [s]  frames    fps   RSS [MB]  threads py/os  recordings", flush=True)
        try:
            while (elapsed := time.monotonic() - started) < args.minutes * 60:
                time.sleep(min(args.interval, args.minutes * 60 - elapsed))
                snap = session.engine.stats.snapshot()
                sample = Sample(
                    round(time.monotonic() - started, 1),
                    session.engine.frames_published,
                    round(snap.fps, 1),
                    round(rss_mb(), 1),
                    threading.active_count(),
                    os_threads(),
                    churn.recordings,
                )
                samples.append(sample)
                print(
                    f"{sample.elapsed_s:7.0f} {sample.frames:7d} {sample.fps:6.1f} "
                    f"{sample.rss_mb:10.1f} {sample.python_threads:8d}/{sample.os_threads:<4d}"
                    f" {sample.recordings:10d}",
                    flush=True,
                )
        finally:
            churn.stop()
            session.stop()
    ok, text = verdict(samples)
    errors = [*churn.errors, *(str(e) for e in [session.error] if e is not None)]
    print(f"{'PASS' if ok and not errors else 'FAIL'}: {text}")
    for error in errors[:10]:
        print(f"  error: {error}")
    if args.json is not None:
        report = {"samples": [asdict(s) for s in samples], "pass": ok, "verdict": text}
        args.json.write_text(json.dumps({**report, "errors": errors}, indent=2) + "\n")
    return 0 if ok and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
