"""The output's lid opening (engine/swap/lids.py): the target's gap, pushed away from the
source photo's by GAIN, set exactly on the posed mesh. Real meshes of real photos."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.face.iris import eye_openness
from engine.swap import lids
from tests.engine.swap.support import EILEEN, GRACE, analyzer


@pytest.fixture(scope="module")
def mesh() -> np.ndarray:
    face = analyzer().analyze_image(read_image(GRACE))[0]
    assert face.landmarks is not None
    return face.landmarks


def test_open_lids_sets_the_gap_and_keeps_the_rest(mesh: np.ndarray) -> None:
    seen = eye_openness(mesh)
    wanted = (seen[0] * 0.4, seen[1] * 1.3)
    moved = lids.open_lids(mesh, seen, wanted)
    np.testing.assert_allclose(eye_openness(moved), wanted, rtol=1e-4)
    lid_points = {i for lower, upper in lids.LIDS for i in (*lower[1:-1], *upper)}
    others = np.setdiff1d(np.arange(len(mesh)), sorted(lid_points))
    np.testing.assert_array_equal(moved[others], mesh[others])
    # The upper lid does most of the travel, as in a blink.
    upper, lower = lids.LIDS[0][1][3], lids.LIDS[0][0][4]
    assert abs(moved[upper, 1] - mesh[upper, 1]) > 2 * abs(moved[lower, 1] - mesh[lower, 1])


def test_a_wider_source_eye_closes_the_output_further(mesh: np.ndarray) -> None:
    source = analyzer().analyze_image(read_image(EILEEN))[0].landmarks
    assert source is not None
    seen, shown = lids.lid_gaps(mesh, source)
    own = eye_openness(source)
    for t, s, out in zip(seen, own, shown, strict=True):
        assert (out - t) * (t - s) >= 0.0  # pushed away from the source's opening
        assert out == pytest.approx(max(lids.NARROWEST, t + lids.GAIN * (t - s)))
    # Same eyes: nothing moves.
    same_seen, same_shown = lids.lid_gaps(mesh, mesh)
    assert same_shown == pytest.approx(same_seen)
    np.testing.assert_array_equal(lids.open_lids(mesh, same_seen, same_shown), mesh)


def test_your_own_eyes_are_pushed_less_than_the_photos(mesh: np.ndarray) -> None:
    """With your own eyes the lids are pushed past the target's by `YOURS_GAIN`, a
    smaller share than the photo's eyes take (your eyeball would stretch with them)."""
    source = analyzer().analyze_image(read_image(EILEEN))[0].landmarks
    assert source is not None
    seen, pushed = lids.lid_gaps(mesh, source, lids.YOURS_GAIN)
    _, photo = lids.lid_gaps(mesh, source)
    for t, s, out, far in zip(seen, eye_openness(source), pushed, photo, strict=True):
        assert out == pytest.approx(max(lids.NARROWEST, t + lids.YOURS_GAIN * (t - s)))
        assert abs(out - t) < abs(far - t)
