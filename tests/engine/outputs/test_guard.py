"""The output guard's policy on packets whose swap check is known: hand on, hold, cover,
placeholder, label, watermark — and the guard in a live session's outputs.

Every frame the guard hands on carries the invisible watermark, so the expected frames
are compared marked (`_marked`: the same Watermarker the guard uses)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.packet import FramePacket, SwapCheck
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.settings import EngineSettings, OutputSettings
from engine.core.types import Frame
from engine.outputs.cover import blur, cover_boxes, pixelate
from engine.outputs.guard import OutputGuard, card_for
from engine.outputs.output_set import OutputConfig
from engine.runtime.pipeline import Engine
from engine.runtime.session import LiveSession
from engine.sources import DemoSource
from engine.watermark.detect import detect
from engine.watermark.embed import Watermarker
from tests.engine.stages.passthrough import PassThrough

MS = 1_000_000
SIZE = (96, 128)  # h, w


class _NoFeed:
    """The guard is driven with `guard()` directly here: nothing to subscribe to."""

    def add_listener(self, listener: Callable[[FramePacket], None]) -> None: ...

    def remove_listener(self, listener: Callable[[FramePacket], None]) -> None: ...


def _frame(seed: int) -> Frame:
    rng = np.random.default_rng(seed)
    frame = rng.integers(0, 256, (*SIZE, 3), dtype=np.uint8)
    frame.flags.writeable = False
    return frame


def _packet(i: int, check: SwapCheck | None, t_ms: float | None = None) -> FramePacket:
    """Frame i, captured at `t_ms` (default i·33 ms); a swap shows as inverted pixels."""
    frame = _frame(i)
    swapped = check is not None and check.swapped
    output = (255 - frame) if swapped else None
    capture = round((33 * i if t_ms is None else t_ms) * MS)
    return FramePacket(i, capture, frame, output=output, check=check)


def _guard() -> OutputGuard:
    return OutputGuard(_NoFeed(), OutputSettings)  # type: ignore[arg-type]


def _marked(frame: Frame) -> Frame:
    return Watermarker().mark(frame)


SWAPPED = SwapCheck(True)
LOST = SwapCheck(False, "no_face")
NO_LABEL = OutputSettings(synthetic_label=False)


def test_swapped_frames_pass_with_only_the_watermark_added() -> None:
    guard = _guard()
    packet = _packet(1, SWAPPED)
    out = guard.guard(packet, NO_LABEL)
    assert np.array_equal(out.result, _marked(packet.result))
    assert not np.array_equal(out.result, packet.result)
    assert np.array_equal(packet.result, 255 - _frame(1))  # the engine's frame untouched
    assert out.frame_id == 1 and out.guard == "swapped"
    assert not out.result.flags.writeable


def test_swapped_held_and_raw_frames_carry_a_readable_watermark() -> None:
    """With the label on or off. (Covers and cards are marked too — the tests above
    compare them marked — but a blur or a card is mostly flat, and flat areas are left
    alone: engine.watermark.embed.)"""
    picture = read_image(SAMPLE_FACES_DIR / "grace_hopper.jpg")  # a real picture
    packets = [
        FramePacket(0, 0, picture, output=255 - picture, check=SWAPPED),
        FramePacket(1, 100 * MS, picture, check=LOST),  # held
    ]
    for settings in (NO_LABEL, OutputSettings(), OutputSettings(on_face_lost="off")):
        guard = _guard()
        for packet in packets:
            out = guard.guard(packet, settings)
            found = detect(out.result)
            assert found.marked, (settings, out.guard, found.describe())


def test_a_miss_holds_the_last_swapped_frame_then_covers() -> None:
    guard = _guard()
    good = guard.guard(_packet(0, SWAPPED, 0), NO_LABEL).result
    held = guard.guard(_packet(1, LOST, 300), NO_LABEL)
    assert held.guard == "held" and np.array_equal(held.result, good)
    edge = guard.guard(_packet(2, LOST, 500), NO_LABEL)
    assert edge.guard == "held"  # hold_ms is inclusive
    late = _packet(3, LOST, 501)
    covered = guard.guard(late, NO_LABEL)
    assert covered.guard == "covered"
    assert np.array_equal(covered.result, _marked(blur(late.frame)))
    assert guard.status().counts == {"swapped": 1, "held": 2, "covered": 1, "card": 0, "raw": 0}


def test_hold_never_spans_a_size_change_or_backwards_time() -> None:
    guard = _guard()
    guard.guard(_packet(5, SWAPPED, 1000), NO_LABEL)
    earlier = guard.guard(_packet(6, LOST, 900), NO_LABEL)
    assert earlier.guard == "covered"  # a new source restarted the clock
    bigger = FramePacket(7, 1100 * MS, np.zeros((120, 160, 3), np.uint8), check=LOST)
    assert guard.guard(bigger, NO_LABEL).guard == "covered"


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("blur", lambda p: blur(p.frame)),
        ("pixelate", lambda p: pixelate(p.frame)),
        ("card", lambda p: card_for((SIZE[1], SIZE[0]), "no_face")),
    ],
)
def test_each_cover_replaces_the_whole_frame(action, expected) -> None:  # type: ignore[no-untyped-def]
    guard = _guard()
    packet = _packet(0, LOST)
    out = guard.guard(packet, OutputSettings(synthetic_label=False, on_face_lost=action))
    assert np.array_equal(out.result, _marked(expected(packet)))
    assert not np.array_equal(out.result, _marked(packet.frame))


def test_face_covers_touch_only_the_located_faces_else_everything() -> None:
    guard = _guard()
    settings = OutputSettings(synthetic_label=False, on_face_lost="pixelate-face")
    box = (20, 10, 70, 60)
    located = _packet(0, SwapCheck(False, "swap_off", (box,)))
    out = guard.guard(located, settings).result
    assert np.array_equal(out, _marked(cover_boxes(located.frame, [box], "pixelate")))
    outside = np.ones(SIZE, bool)
    outside[10:60, 20:70] = False
    frame = _marked(located.frame)
    assert np.array_equal(out[outside], frame[outside])
    assert not np.array_equal(out[10:60, 20:70], frame[10:60, 20:70])
    nowhere = _packet(1, SwapCheck(False, "no_face"))
    expected = _marked(pixelate(nowhere.frame))
    assert np.array_equal(guard.guard(nowhere, settings).result, expected)


def test_until_the_stages_run_the_outputs_show_the_starting_card() -> None:
    guard = _guard()
    for check in (SwapCheck(False, "starting"), None):  # None: never processed
        out = guard.guard(_packet(0, check), NO_LABEL)
        assert out.guard == "card"
        assert np.array_equal(out.result, _marked(card_for((SIZE[1], SIZE[0]), "starting")))


def test_off_hands_on_the_raw_frame() -> None:
    guard = _guard()
    packet = _packet(0, LOST)
    out = guard.guard(packet, OutputSettings(synthetic_label=False, on_face_lost="off"))
    assert out.guard == "raw"
    assert np.array_equal(out.result, _marked(packet.frame))


def test_the_label_is_on_every_kind_of_output_frame_by_default() -> None:
    assert OutputSettings().synthetic_label
    labelled, plain = _guard(), _guard()  # the same history, with and without the label
    corner = (slice(int(SIZE[0] * 0.75), SIZE[0]), slice(int(SIZE[1] * 0.5), SIZE[1]))
    top = slice(0, SIZE[0] // 2)
    packets = [_packet(0, SWAPPED, 0), _packet(1, LOST, 100), _packet(2, LOST, 900)]
    for packet, decision in zip(packets, ("swapped", "held", "covered"), strict=True):
        out = labelled.guard(packet, OutputSettings())
        reference = plain.guard(packet, NO_LABEL).result
        assert out.guard == decision
        assert np.abs(out.result[corner].astype(int) - reference[corner]).mean() > 5
        assert np.array_equal(out.result[top], reference[top])
    # The engine's frames are never drawn on.
    assert all(np.array_equal(p.frame, _frame(p.frame_id)) for p in packets)
    assert np.array_equal(packets[0].result, 255 - _frame(0))


def test_a_frame_that_is_no_image_is_not_handed_on() -> None:
    guard = _guard()
    got: list[FramePacket] = []
    guard.add_listener(got.append)
    guard.offer(_packet(0, SWAPPED))
    for broken in (np.zeros((0, 0, 3), np.uint8), np.zeros(100, np.uint8), np.zeros((9, 9))):
        guard.offer(FramePacket(1, 0, broken, check=LOST))  # type: ignore[arg-type]
    assert [p.frame_id for p in got] == [0]
    assert guard.published.read()[1] is got[0]  # the outputs keep showing the last frame


def test_covers_hide_the_face_detail() -> None:
    """Blurred or pixelated, a face region keeps only a few distinct values per axis."""
    face = _frame(3)[:64, :64]
    for covered in (blur(face, 5), pixelate(face, 6)):
        # Fine detail gone: neighbouring pixels nearly equal (the random input's differ
        # by ~85 on average).
        assert np.abs(np.diff(covered.astype(int), axis=1)).mean() < 12


def test_a_live_session_guards_its_outputs() -> None:
    """Pass-through stages never swap: everything the outputs get is the starting card,
    while the engine (the preview) shows the camera."""
    engine = Engine([PassThrough()], EngineSettings())
    session = LiveSession(engine, DemoSource(size=(160, 120)))
    outputs = session.open_outputs(OutputConfig())
    got: list[FramePacket] = []
    outputs.delay.add_listener(got.append)
    session.start()
    try:
        deadline = time.monotonic() + 10
        while len(got) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        session.stop()
    assert len(got) >= 5
    card = _marked(card_for((160, 120), "starting"))
    for packet in got:
        assert packet.guard == "card"
        body = (slice(0, 90), slice(None))  # above the label
        assert np.array_equal(packet.result[body], card[body])
    status = outputs.status().guard
    assert status.decision == "card" and status.miss == "starting"
