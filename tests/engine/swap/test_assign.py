"""Which source goes on which face: the one rule both swappers follow."""

from __future__ import annotations

import numpy as np

from engine.core.face_records import Face
from engine.core.settings import SwapSettings
from engine.swap.assign import assign_sources


def test_map_mode_assigns_sources_left_to_right() -> None:
    def face(track: int, x: float) -> Face:
        landmarks = np.zeros((468, 3), np.float32)
        landmarks[:, 0] = x
        return Face(track, landmarks=landmarks)

    right, left, middle, nowhere = face(0, 900), face(1, 100), face(2, 500), Face(3)
    faces = [right, left, middle, nowhere]
    pairs = assign_sources(faces, SwapSettings(face_selection="map", source_keys=("a", "", "c")))
    assert [(f.track_id, k) for f, k in pairs] == [(1, "a"), (0, "c")]  # "" skips a face
    main = assign_sources(faces, SwapSettings(face_selection="main", source_key="s"))
    assert [(f.track_id, k) for f, k in main] == [(0, "s")]
    every = assign_sources(faces, SwapSettings(face_selection="all", source_key="s"))
    assert [f.track_id for f, _ in every] == [0, 1, 2, 3]
    assert assign_sources(faces, SwapSettings(face_selection="all")) == []
