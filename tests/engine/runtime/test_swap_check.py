"""`check_swap`: what the stages left on a packet says whether the swap happened."""

from __future__ import annotations

import dataclasses

import numpy as np

from engine.core.face_records import Face, FacePatch
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, SwapSettings
from engine.runtime.swap_check import check_swap, face_box

SETTINGS = EngineSettings(swap=SwapSettings(source_key="src"))


def _face(track_id: int, x: float, patched: bool) -> Face:
    """A face whose mesh spans 40×50 px at x; `patched`: the swapper gave it a new face."""
    grid = np.stack(np.meshgrid(np.linspace(x, x + 40, 10), np.linspace(20, 70, 10)), -1)
    landmarks = np.concatenate([grid.reshape(-1, 2), np.zeros((100, 1))], 1).astype(np.float32)
    patch = None
    if patched:
        patch = FacePatch(
            int(x), 20, np.zeros((50, 40, 3), np.float32), np.ones((50, 40), np.float32)
        )
    return Face(track_id, landmarks=landmarks, patch=patch)


def _packet(faces: list[Face], composited: bool = True) -> FramePacket:
    frame = np.zeros((120, 200, 3), np.uint8)
    packet = FramePacket(0, 0, frame, faces=faces)
    if composited:
        packet.composited = True
        if any(f.patch is not None for f in faces):
            packet.output = frame.copy()
    return packet


def test_a_swapped_main_face_is_a_swap_even_beside_a_bystander() -> None:
    packet = _packet([_face(1, 20, True), _face(2, 120, False)])  # "main": the first only
    assert check_swap(packet, SETTINGS).swapped


def test_before_the_face_stages_run_it_is_starting() -> None:
    check = check_swap(_packet([], composited=False), SETTINGS)
    assert (check.swapped, check.miss, check.exposed) == (False, "starting", ())


def test_no_face_is_a_miss_with_nothing_located() -> None:
    check = check_swap(_packet([]), SETTINGS)
    assert (check.swapped, check.miss, check.exposed) == (False, "no_face", ())


def test_a_failed_stage_is_a_miss_even_with_patches() -> None:
    packet = _packet([_face(1, 20, True)])
    packet.error = "enhancer: boom"
    packet.output = None  # what the engine does on a failure
    check = check_swap(packet, SETTINGS)
    assert (check.swapped, check.miss) == (False, "stage_failed")
    assert len(check.exposed) == 1


def test_swap_off_and_no_source_expose_every_face() -> None:
    faces = [_face(1, 20, False), _face(2, 120, False)]
    off = dataclasses.replace(SETTINGS, swap=SwapSettings(source_key="src", enabled=False))
    assert check_swap(_packet(faces), off).miss == "swap_off"
    none = dataclasses.replace(SETTINGS, swap=SwapSettings(source_key=None))
    check = check_swap(_packet(faces), none)
    assert check.miss == "no_source" and len(check.exposed) == 2


def test_map_mode_with_nothing_mapped_is_no_source() -> None:
    mapped_none = EngineSettings(swap=SwapSettings(face_selection="map", source_key="src"))
    check = check_swap(_packet([_face(1, 20, False)]), mapped_none)
    assert (check.swapped, check.miss) == (False, "no_source")


def test_one_face_of_two_missed_exposes_only_that_one() -> None:
    both = EngineSettings(swap=SwapSettings(face_selection="all", source_key="src"))
    missed = _face(2, 120, False)
    check = check_swap(_packet([_face(1, 20, True), missed]), both)
    assert (check.swapped, check.miss) == (False, "not_swapped")
    assert check.exposed == (face_box(missed, (200, 120)),)
    none_swapped = check_swap(_packet([_face(1, 20, False), missed]), both)
    assert len(none_swapped.exposed) == 2


def test_face_box_grows_by_a_quarter_and_stays_in_the_frame() -> None:
    box = face_box(_face(1, 20, False), (200, 120))
    assert box == (7, 7, 73, 83)  # 40×50 mesh, grown by 0.25 × 50 = 12.5 px a side, outward
    edge = face_box(_face(1, 170, False), (200, 120))
    assert edge is not None and edge[2] == 200
