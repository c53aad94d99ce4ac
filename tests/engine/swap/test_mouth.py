"""The inside of a source photo's mouth seen on its lips, and the lip colour it is filled with."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.swap.library import SourceLibrary
from engine.swap.mouth import fill_from_lips, lip_line
from tests.engine.swap.support import dev

LIP = np.array([90.0, 80.0, 170.0], np.float32)  # BGR


def _lips_with_teeth(hole_rows: slice) -> tuple[np.ndarray, np.ndarray]:
    albedo = np.broadcast_to(LIP, (96, 96, 3)).copy()
    inside = np.zeros((96, 96), np.float32)
    inside[hole_rows, 20:76] = 1.0
    albedo[inside > 0] = (235.0, 235.0, 240.0)  # teeth
    return albedo, inside


def test_the_mouths_inside_is_filled_with_the_lips_colour_and_nothing_else_changes() -> None:
    albedo, inside = _lips_with_teeth(slice(44, 52))
    filled = fill_from_lips(albedo, inside)
    np.testing.assert_array_equal(filled[inside == 0], albedo[inside == 0])
    assert np.abs(filled[inside == 1] - LIP).max() < 1.0


def test_a_broad_band_of_teeth_is_filled_to_its_middle() -> None:
    """Wider than the nearest ring reaches: its middle takes the wider rings' colour, not
    black (a normalised blur alone divides by almost nothing there)."""
    albedo, inside = _lips_with_teeth(slice(24, 72))
    filled = fill_from_lips(albedo, inside)
    assert np.abs(filled[inside == 1] - LIP).max() < 1.0


def _lightness(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)[..., 0]


@pytest.mark.testdata
@pytest.mark.parametrize("photo", ["biden_2.jpg", "obama_2.jpg"])
def test_a_smiling_sources_teeth_leave_its_lips(library: SourceLibrary, photo: str) -> None:
    """Both show their teeth: in the texture they sit on and between the lips, pale
    (teeth are nearly colourless; lips are not). What renders on a closed mouth has
    almost none of them left (133 → 0 and 287 → 3 texels; 253 → 0 and 389 → 5 before
    the photo's light over its form was divided out too, which left their teeth a
    little less colourless); what renders a swapped-in
    mouth inside keeps the row between the texture's lips as it is (it is that inside)."""
    identity = library.load_identity([dev(photo)])
    assert identity.mouth_inside is not None
    marked = identity.mouth_inside > 0.5
    pale_before = int((_chroma(identity.albedo)[marked] < 12.0).sum())
    pale_after = int((_chroma(identity.texture()[..., :3])[marked] < 12.0).sum())
    assert pale_before > 100
    assert pale_after < 0.05 * pale_before
    line = lip_line(identity.albedo.shape[0]) == 1.0
    np.testing.assert_array_equal(
        identity.texture(mouth_line=False)[line, :3], identity.albedo[line]
    )
    assert not np.array_equal(identity.texture()[line, :3], identity.albedo[line])


def _chroma(bgr: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    return np.hypot(lab[..., 1], lab[..., 2])
