"""CPU time per thread of this process, for `fusecam bench`: which thread the process's
CPU time goes to (capture and its decoder, engine, background detection, sinks). A thread
that ends before the last snapshot (a drained file source's capture thread) hands in its
own time as it ends (`this_thread`), so it is listed by its name too.

Linux only (/proc/self/task); elsewhere the snapshot is empty and the bench leaves the
breakdown out. Resolution is the kernel's clock tick (10 ms at USER_HZ 100): enough over
a run of seconds, not for one frame.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

_TASKS = Path("/proc/self/task")


def _ticks_per_s() -> float:
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100.0


def snapshot() -> dict[int, tuple[str, float]]:
    """{thread id: (name, CPU seconds so far)}: Python threads by their name, native ones
    (a decoder's, onnxruntime's) by the kernel's name in brackets."""
    if not _TASKS.is_dir():
        return {}
    return _read(list(_TASKS.iterdir()))


def this_thread() -> dict[int, tuple[str, float]]:
    """The calling thread's entry of `snapshot()`, for a thread about to end: the
    snapshot after it ended could not list it."""
    task = _TASKS / str(threading.get_native_id())
    return _read([task]) if task.is_dir() else {}


def _read(tasks: list[Path]) -> dict[int, tuple[str, float]]:
    names = {t.native_id: t.name for t in threading.enumerate() if t.native_id is not None}
    tick = _ticks_per_s()
    found: dict[int, tuple[str, float]] = {}
    for task in tasks:
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue  # the thread ended while we listed them
        comm, _, rest = stat.partition(" (")[2].rpartition(") ")
        fields = rest.split()
        # After the name: state, ppid, ... utime and stime are the 12th and 13th.
        cpu_s = (int(fields[11]) + int(fields[12])) / tick
        tid = int(task.name)
        found[tid] = (names.get(tid) or f"[{comm}]", cpu_s)
    return found


ENDED = "(ended)"


def per_thread_ms(
    before: dict[int, tuple[str, float]],
    after: dict[int, tuple[str, float]],
    frames: int,
    process_s: float,
) -> dict[str, float]:
    """CPU milliseconds per frame by thread name between two snapshots, busiest first
    (threads of one name add up; one that started in between counts from zero). What
    the process spent beyond them (`process_s`) went to threads that ended before the
    second snapshot and did not hand in their own (`this_thread`) at their end: FFmpeg's
    decoder threads, gone with the video they decoded. They are listed as ENDED."""
    if frames <= 0 or not after:
        return {}
    by_name: dict[str, float] = {}
    for tid, (name, cpu_s) in after.items():
        spent = cpu_s - before.get(tid, (name, 0.0))[1]
        by_name[name] = by_name.get(name, 0.0) + spent
    # The threads' times come in clock ticks, the process's finer: a remainder under one
    # tick is the two clocks' rounding, not a thread.
    ended = process_s - sum(by_name.values())
    if ended >= 1.0 / _ticks_per_s():
        by_name[ENDED] = ended
    rows = sorted(by_name.items(), key=lambda kv: kv[1], reverse=True)
    ms = {name: round(s * 1000 / frames, 2) for name, s in rows}
    return {name: v for name, v in ms.items() if v > 0}
