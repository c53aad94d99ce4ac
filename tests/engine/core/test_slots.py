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


def _read_checked(
    buffer: DoubleBuffer[tuple[int, np.ndarray]],
    stop: threading.Event,
    who: str,
    failures: list[str],
    seen: set[int],
) -> None:
    """Read until `stop`, noting any item that came with another item's version or a
    version going back."""
    last = 0
    while not stop.is_set():
        version, item = buffer.read()
        if version < last:
            failures.append(f"{who}: version went back {last} -> {version}")
        last = version
        if item is None:
            continue
        k, _ = item
        if k != version:
            failures.append(f"{who}: item {k} published as version {version}")
        seen.add(version)


def test_double_buffer_concurrent_readers_see_each_item_with_its_own_version() -> None:
    """One writer publishes fresh read-only frames; four readers read continuously for
    ~0.5 s. Every item a reader sees came with the version it was published as, and
    versions never go backwards. (A torn frame cannot happen here by construction: the
    buffer hands on references and publishers never write to a published array — the
    engine marks its results read-only, tests/engine/runtime/test_pipeline.py.)"""
    buffer: DoubleBuffer[tuple[int, np.ndarray]] = DoubleBuffer()
    stop = threading.Event()
    failures: list[str] = []
    seen_versions: list[set[int]] = [set() for _ in range(4)]

    def writer() -> None:
        k = 0
        while not stop.is_set():
            k += 1
            frame = np.full((90, 160, 3), k % 256, np.uint8)
            frame.flags.writeable = False  # as the engine does before publishing
            buffer.write_back((k, frame))
            version = buffer.swap()
            if version != k:
                failures.append(f"writer: version {version} after {k} publishes")

    def reader(index: int) -> None:
        _read_checked(buffer, stop, f"reader {index}", failures, seen_versions[index])

    threads = [threading.Thread(target=writer, daemon=True)]
    threads += [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(4)]
    for thread in threads:
        thread.start()
    # At least 0.5 s, and until every reader has raced the writer many times (a loaded
    # machine gives these threads fewer time slices).
    started = time.monotonic()
    while time.monotonic() - started < 5.0 and not (
        time.monotonic() - started >= 0.5 and all(len(seen) > 20 for seen in seen_versions)
    ):
        time.sleep(0.05)
    stop.set()
    for thread in threads:
        thread.join(5)
    assert not any(t.is_alive() for t in threads)
    assert failures == []
    # The test means something only if the readers really raced the writer.
    assert all(len(seen) > 20 for seen in seen_versions), [len(s) for s in seen_versions]
    _, last = buffer.read()
    assert last is not None
    frame = last[1]
    assert not frame.flags.writeable
