"""Per-thread CPU time for the bench: a busy named thread shows under its name."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from engine.tools import thread_cpu


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/task is Linux's")
def test_a_busy_thread_is_listed_by_its_name() -> None:
    done = threading.Event()

    def work() -> None:
        burn(0.3)
        done.set()
        time.sleep(0.5)  # still alive at the second snapshot

    thread = threading.Thread(target=work, name="busy-worker")
    before = thread_cpu.snapshot()
    thread.start()
    done.wait(10)
    after = thread_cpu.snapshot()
    thread.join()
    assert any(name == "MainThread" for name, _ in after.values())
    ms = thread_cpu.per_thread_ms(before, after, frames=10, process_s=0.3)
    # 0.3 s over 10 frames: ~30 ms a frame (the kernel counts in 10 ms ticks).
    assert 20.0 <= ms["busy-worker"] <= 45.0, ms
    assert next(iter(ms)) == "busy-worker"  # busiest first


def test_time_of_threads_that_ended_is_the_remainder() -> None:
    before = {1: ("engine", 1.0), 2: ("capture", 0.5)}
    after = {1: ("engine", 1.2), 3: ("late", 0.05)}  # capture ended, "late" started
    ms = thread_cpu.per_thread_ms(before, after, frames=10, process_s=0.3)
    assert ms == {"engine": 20.0, thread_cpu.ENDED: 5.0, "late": 5.0}
    assert thread_cpu.per_thread_ms(before, {}, frames=10, process_s=0.3) == {}
    assert thread_cpu.per_thread_ms(before, after, frames=0, process_s=0.3) == {}


def test_a_remainder_under_one_clock_tick_is_not_listed() -> None:
    """The threads' times are whole ticks, the process's time is finer: what is left over
    below one tick (or what rounds to 0.00 ms a frame) is rounding, not a thread."""
    before = {1: ("engine", 1.0)}
    after = {1: ("engine", 1.3), 2: ("idle", 0.0)}
    ms = thread_cpu.per_thread_ms(before, after, frames=40, process_s=0.300004)
    assert ms == {"engine": 7.5}
    assert all(v > 0 for v in ms.values())


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/task is Linux's")
def test_a_thread_hands_in_only_its_own_time() -> None:
    got: dict[int, tuple[str, float]] = {}

    def work() -> None:
        burn(0.1)
        got.update(thread_cpu.this_thread())

    thread = threading.Thread(target=work, name="ending-worker")
    thread.start()
    thread.join()
    assert [name for name, _ in got.values()] == ["ending-worker"]
    assert next(iter(got.values()))[1] >= 0.05
