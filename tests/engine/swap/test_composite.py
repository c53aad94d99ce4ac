"""Built-in swap through the live stages: what changes in the frame and what must not.

Each still goes through fresh stages (detect → mesh → fit → swap → enhance → composite),
as `fusecam swap` runs them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.core.face_records import Face
from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, SwapSettings
from engine.core.types import Frame
from engine.swap.library import SourceLibrary
from tests.engine.swap.support import (
    EILEEN,
    GRACE,
    analyzer,
    dev,
    dilate,
    erode,
    hull_mask,
    patch_in_frame,
    region_mask,
    swap_frame,
    teeth_pixels,
)


def settings_for(library: SourceLibrary, source: Path, **changes: object) -> EngineSettings:
    """Default settings with `source` active; `changes` are `section__field=value`."""
    settings = EngineSettings(swap=SwapSettings(source_key=library.load_identity([source]).key))
    for name, value in changes.items():
        section, field = name.split("__")
        part = dataclasses.replace(getattr(settings, section), **{field: value})
        settings = dataclasses.replace(settings, **{section: part})
    return settings


def swapped(
    library: SourceLibrary, source: Path, target: Path, **changes: object
) -> tuple[Frame, FramePacket, Face]:
    frame = read_image(target)
    packet = swap_frame(library, settings_for(library, source, **changes), frame)
    assert packet.output is not None, "nothing was swapped"
    assert len(packet.faces) >= 1 and packet.faces[0].patch is not None
    return frame, packet, packet.faces[0]


def outline(coverage: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The face region with its holes (the open mouth) filled in."""
    contours, _ = cv2.findContours(
        coverage.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE
    )
    filled = np.zeros(coverage.shape, np.uint8)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return filled > 0


def coverage_of(face: Face, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    assert face.patch is not None
    return patch_in_frame(face.patch, face.patch.mask, shape) > 0


MODES = [
    pytest.param({}, id="default"),
    pytest.param({"enhancer__mode": "builtin"}, id="enhancer"),
]
TARGETS = [
    pytest.param(EILEEN, id="eileen"),
    pytest.param(dev("obama_2.jpg"), id="obama_2", marks=pytest.mark.testdata),
]


# --- what must not change -------------------------------------------------------------------


@pytest.mark.parametrize("changes", MODES)
@pytest.mark.parametrize("target", TARGETS)
def test_outside_the_face_the_frame_is_unchanged_pixel_for_pixel(
    library: SourceLibrary, target: Path, changes: dict[str, object]
) -> None:
    frame, packet, face = swapped(library, GRACE, target, **changes)
    assert packet.output is not None
    face_region = outline(coverage_of(face, frame.shape))
    np.testing.assert_array_equal(packet.output[~face_region], frame[~face_region])
    # ... and the face itself did change (the swap ran in this mode). Not all of it:
    # where the source's forehead shows hair (Grace Hopper's), the target's stays.
    inside = erode(face_region, 4)
    changed = np.abs(packet.output.astype(np.int16) - frame).max(axis=2) > 0
    assert changed[inside].mean() > 0.75


@pytest.mark.parametrize("changes", MODES[:2])
def test_no_pixel_outside_the_rendered_face_changes(
    library: SourceLibrary, changes: dict[str, object]
) -> None:
    frame, packet, face = swapped(library, GRACE, EILEEN, **changes)
    assert packet.output is not None
    outside = ~coverage_of(face, frame.shape)
    changed = np.abs(packet.output.astype(np.int16) - frame).max(axis=2)[outside]
    assert int((changed > 0).sum()) == 0, f"{(changed > 0).sum()} px, max {changed.max()}"


OPEN_MOUTHS = [
    pytest.param(EILEEN, id="eileen"),
    pytest.param(dev("obama_1.jpg"), id="obama_1", marks=pytest.mark.testdata),
    pytest.param(dev("obama_2.jpg"), id="obama_2", marks=pytest.mark.testdata),
]


@pytest.mark.parametrize("target", OPEN_MOUTHS)
def test_the_target_mouth_interior_is_kept(library: SourceLibrary, target: Path) -> None:
    frame, packet, face = swapped(library, GRACE, target)
    assert packet.output is not None
    mouth = erode(region_mask(face, "lips_inner", frame.shape), 3)
    assert mouth.sum() >= 20, "precondition: an open mouth"
    diff = np.abs(packet.output.astype(np.int16) - frame).max(axis=2)[mouth]
    assert int(diff.max()) <= 2, diff.max()  # measured 0


def test_the_mouth_interior_can_be_swapped_too(library: SourceLibrary) -> None:
    frame, packet, face = swapped(library, GRACE, EILEEN, swap__keep_mouth_interior=False)
    assert packet.output is not None
    mouth = erode(region_mask(face, "lips_inner", frame.shape), 2)
    diff = np.abs(packet.output.astype(np.int16) - frame).max(axis=2)[mouth]
    assert float(diff.mean()) > 10.0


CLOSED_MOUTH_PAIRS = [
    # (source with an open, smiling mouth, target with a closed one)
    pytest.param(EILEEN, GRACE, id="eileen-grace"),
    pytest.param(dev("obama_1.jpg"), GRACE, id="obama_1-grace", marks=pytest.mark.testdata),
    pytest.param(
        dev("obama_1.jpg"),
        dev("anon_inspireface_1561_1.jpg"),
        id="obama_1-1561",
        marks=pytest.mark.testdata,
    ),
    pytest.param(
        dev("obama_1.jpg"), dev("biden_1.jpg"), id="obama_1-biden_1", marks=pytest.mark.testdata
    ),
]


@pytest.mark.parametrize(("source", "target"), CLOSED_MOUTH_PAIRS)
def test_the_sources_teeth_never_show_on_a_closed_mouth(
    library: SourceLibrary, source: Path, target: Path
) -> None:
    identity = library.load_identity([source])
    source_face = analyzer().analyze_image(identity.images[0])[0]
    source_teeth = teeth_pixels(
        identity.images[0], region_mask(source_face, "lips_inner", identity.images[0].shape)
    )
    assert source_teeth > 50, "precondition: the source shows its teeth"  # 108, 1078
    frame, packet, face = swapped(library, source, target)
    assert packet.output is not None
    lips = dilate(region_mask(face, "lips_outer", frame.shape), 2)
    # A few bright pixels may be the source's lip highlight (Eileen onto Grace: 8 of the
    # 1,628 lip pixels, none with obama_1); her teeth at Grace's scale would be ~400.
    allowed = teeth_pixels(frame, lips) + max(5, int(0.02 * lips.sum()))
    assert teeth_pixels(packet.output, lips) <= allowed


# --- the blend and quality mode ------------------------------------------------------------------


def face_difference(frame: Frame, output: Frame, face: Face) -> NDArray[np.int16]:
    inside = erode(hull_mask(face, frame.shape), 3)
    return np.abs(output.astype(np.int16) - frame)[inside]


@pytest.mark.parametrize(
    "target", [pytest.param(EILEEN, id="eileen"), pytest.param(GRACE, id="grace")]
)
def test_blend_zero_returns_the_target_face(library: SourceLibrary, target: Path) -> None:
    source = GRACE if target == EILEEN else EILEEN
    frame, packet, face = swapped(library, source, target, swap__blend=0.0)
    assert packet.output is not None
    diff = face_difference(frame, packet.output, face)
    assert float(diff.mean()) < 2.0, diff.mean()
    assert float(np.percentile(diff, 99)) < 12


def test_blend_zero_is_much_closer_to_the_target_than_a_full_swap(library: SourceLibrary) -> None:
    frame, none, face = swapped(library, GRACE, EILEEN, swap__blend=0.0)
    _, full, _ = swapped(library, GRACE, EILEEN)
    assert none.output is not None and full.output is not None
    near = float(face_difference(frame, none.output, face).mean())
    far = float(face_difference(frame, full.output, face).mean())
    assert near < 0.4 * far, (near, far)
