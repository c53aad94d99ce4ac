"""LatestSlot (newest wins, drops counted) and DoubleBuffer (non-consuming reads)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from engine.core.slots import DoubleBuffer, LatestSlot


def _in_thread(fn: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """Run `fn()` in a thread; its return value lands in the list."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    thread.start()
    return thread, result


# --- LatestSlot ---------------------------------------------------------------------------


def test_latest_slot_newest_wins_and_counts_every_overwrite_as_a_drop() -> None:
    slot: LatestSlot[int] = LatestSlot()
    for i in range(1, 6):
        slot.put(i)
    assert slot.get(timeout=0) == 5
    assert slot.drops == 4
    assert slot.puts == 5
    # Taken: nothing fresh is left, so a second get times out instead of repeating 5.
    assert slot.get(timeout=0.02) is None
    # A put after a get overwrites nothing: no new drop.
    slot.put(6)
    assert slot.get(timeout=0) == 6
    assert slot.drops == 4


def test_latest_slot_get_blocks_until_a_put() -> None:
    slot: LatestSlot[str] = LatestSlot()
    getter, result = _in_thread(lambda: slot.get(timeout=10))
    time.sleep(0.1)
    assert getter.is_alive(), "get returned before anything was put"
    slot.put("frame")
    getter.join(5)
    assert not getter.is_alive()
    assert result == ["frame"]


def test_latest_slot_get_times_out_with_none() -> None:
    slot: LatestSlot[int] = LatestSlot()
    started = time.monotonic()
    assert slot.get(timeout=0.05) is None
    assert time.monotonic() - started >= 0.04  # it did wait, it did not just return


def test_latest_slot_close_wakes_a_blocked_getter() -> None:
    slot: LatestSlot[int] = LatestSlot()
    getter, result = _in_thread(lambda: slot.get(timeout=None))
    time.sleep(0.05)
    assert getter.is_alive()
    slot.close()
    getter.join(5)
    assert not getter.is_alive(), "close() did not wake the getter"
    assert result == [None]
    assert slot.closed


def test_latest_slot_reopen_after_close_delivers_again() -> None:
    slot: LatestSlot[int] = LatestSlot()
    slot.close()
    assert slot.get(timeout=0) is None
    slot.reopen()
    assert not slot.closed
    assert slot.get(timeout=0.02) is None  # blocks (times out) again instead of returning at once
    slot.put(7)
    assert slot.get(timeout=0) == 7


def test_latest_slot_wait_taken() -> None:
    slot: LatestSlot[int] = LatestSlot()
    assert slot.wait_taken(timeout=0)  # nothing pending
    slot.put(1)
    assert not slot.wait_taken(timeout=0.02)  # nobody took it
    waiter, result = _in_thread(lambda: slot.wait_taken(timeout=10))
    time.sleep(0.05)
    assert waiter.is_alive()
    assert slot.get(timeout=0) == 1
    waiter.join(5)
    assert result == [True]


def test_latest_slot_close_releases_wait_taken() -> None:
    slot: LatestSlot[int] = LatestSlot()
    slot.put(1)
    waiter, result = _in_thread(lambda: slot.wait_taken(timeout=10))
    time.sleep(0.05)
    slot.close()
    waiter.join(5)
    assert result == [True]


# --- DoubleBuffer -------------------------------------------------------------------------


def test_double_buffer_starts_empty() -> None:
    buffer: DoubleBuffer[str] = DoubleBuffer()
    assert buffer.read() == (0, None)
    assert buffer.version == 0


def test_double_buffer_readers_do_not_consume_and_versions_increase() -> None:
    buffer: DoubleBuffer[str] = DoubleBuffer()
    assert buffer.publish("a") == 1
    assert buffer.read() == (1, "a")
    assert buffer.read() == (1, "a")  # a second reader sees the same front
    assert buffer.publish("b") == 2
    assert buffer.read() == (2, "b")
    buffer.write_back("c")
    assert buffer.read() == (2, "b")  # the back buffer is invisible until swapped
    assert buffer.swap() == 3
    assert buffer.read() == (3, "c")
    assert buffer.version == 3


def test_double_buffer_wait_newer_wakes_on_publish() -> None:
    buffer: DoubleBuffer[str] = DoubleBuffer()
    buffer.publish("a")
    waiter, result = _in_thread(lambda: buffer.wait_newer(1, timeout=10))
    time.sleep(0.05)
    assert waiter.is_alive(), "wait_newer returned without a newer item"
    buffer.publish("b")
    waiter.join(5)
    assert result == [(2, "b")]
    # Already newer: returns at once.
    assert buffer.wait_newer(0, timeout=0) == (2, "b")


def test_double_buffer_wait_newer_times_out_with_the_current_front() -> None:
    buffer: DoubleBuffer[str] = DoubleBuffer()
    buffer.publish("a")
    started = time.monotonic()
    assert buffer.wait_newer(1, timeout=0.05) == (1, "a")
    assert time.monotonic() - started >= 0.04


RACED_VERSIONS = 100  # distinct versions each reader must see before the writer stops


def _fill(k: int) -> int:
    return 1 + k % 255  # never 0: a frame still being filled reads as torn


def _read_checked(
    buffer: DoubleBuffer[tuple[int, np.ndarray]],
    stop: threading.Event,
    raced: threading.Event,
    who: str,
    failures: list[str],
) -> None:
    """Read until `stop`, noting any item that came with another item's version, a
    version going back, or a torn frame (rows of different frames, or rows not written
    yet); `raced` is set once this reader has seen RACED_VERSIONS versions."""
    last = 0
    seen: set[int] = set()
    while not stop.is_set():
        version, item = buffer.read()
        if version < last:
            failures.append(f"{who}: version went back {last} -> {version}")
        last = version
        if item is None:
            continue
        k, frame = item
        if k != version:
            failures.append(f"{who}: item {k} published as version {version}")
        lo, hi = int(frame.min()), int(frame.max())
        if lo != hi or lo != _fill(k):
            failures.append(f"{who}: frame {k} torn (values {lo}..{hi}, want {_fill(k)})")
        seen.add(version)
        if len(seen) >= RACED_VERSIONS:
            raced.set()


def test_double_buffer_readers_never_see_the_back_buffer_being_written() -> None:
    """The writer hands each frame to the back buffer first and fills it row by row
    afterwards (the back buffer is the writer's until `swap`), then publishes it; four
    readers read all the while. A reader never sees a frame being filled (a slot that
    showed its back buffer, or published on `write_back`, would hand out torn frames),
    every item comes with the version it was published as, and versions never go back.
    Published frames are never written again, as the engine's are (read-only)."""
    buffer: DoubleBuffer[tuple[int, np.ndarray]] = DoubleBuffer()
    stop = threading.Event()
    failures: list[str] = []
    raced = [threading.Event() for _ in range(4)]

    def writer() -> None:
        k = 0
        while not stop.is_set():
            k += 1
            frame = np.zeros((48, 64, 3), np.uint8)
            buffer.write_back((k, frame))
            for row in frame:  # one row at a time: other threads run in between
                row[:] = _fill(k)
            frame.flags.writeable = False  # as the engine does before publishing
            version = buffer.swap()
            if version != k:
                failures.append(f"writer: version {version} after {k} publishes")

    threads = [threading.Thread(target=writer, daemon=True)]
    threads += [
        threading.Thread(
            target=_read_checked,
            args=(buffer, stop, raced[i], f"reader {i}", failures),
            daemon=True,
        )
        for i in range(4)
    ]
    for thread in threads:
        thread.start()
    # Until every reader has raced the writer over many versions (the timeout only
    # keeps a broken slot from hanging the suite).
    all_raced = all(event.wait(60) for event in raced)
    stop.set()
    for thread in threads:
        thread.join(5)
    assert not any(t.is_alive() for t in threads)
    assert failures == [], failures[:5]
    assert all_raced, "the readers did not race the writer"
