"""The compiled unit normals are vertex_normals, and the facing pass their z, negated
and clipped, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.face.fit import vertex_normals
from engine.swap.facing import facing, unit_normals
from tests.engine.swap.support import EILEEN, GRACE, dev, fitted_face, fitter


@pytest.mark.parametrize("photo", [GRACE, EILEEN, dev("obama_2.jpg"), dev("biden_1.jpg")])
def test_facing_is_the_numpy_normals_bit_for_bit(photo: object) -> None:
    face = fitted_face(read_image(photo))  # type: ignore[arg-type]
    assert face.landmarks is not None
    triangles = fitter().triangles
    expected = np.clip(-vertex_normals(face.landmarks, triangles)[:, 2], 0.0, 1.0)
    points = np.ascontiguousarray(face.landmarks, np.float32)
    ours = facing(unit_normals(points, np.ascontiguousarray(triangles, np.int32)))
    assert ours.dtype == expected.dtype
    np.testing.assert_array_equal(ours, expected)
    assert 0.5 < float(np.median(ours)) <= 1.0  # a face towards the camera


def test_a_face_turned_away_faces_nowhere() -> None:
    face = fitted_face(read_image(GRACE))
    assert face.landmarks is not None
    # Half a turn about the vertical axis: the camera sees the back of the mesh.
    behind = np.ascontiguousarray(face.landmarks * np.float32([-1, 1, -1]))
    triangles = fitter().triangles
    expected = np.clip(-vertex_normals(behind, triangles)[:, 2], 0.0, 1.0)
    ours = facing(unit_normals(behind, np.ascontiguousarray(triangles, np.int32)))
    np.testing.assert_array_equal(ours, expected)
    assert float(np.median(ours)) == 0.0


@pytest.mark.parametrize("photo", [GRACE, EILEEN])
def test_the_compiled_normals_are_the_numpy_normals(photo: object) -> None:
    face = fitted_face(read_image(photo))  # type: ignore[arg-type]
    assert face.landmarks is not None
    triangles = fitter().triangles
    points = np.ascontiguousarray(face.landmarks, np.float32)
    ours = unit_normals(points, np.ascontiguousarray(triangles, np.int32))
    assert ours.dtype == np.float32 and ours.shape == (len(points), 3)
    np.testing.assert_array_equal(ours, vertex_normals(points, triangles))
