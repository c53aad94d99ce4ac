"""Which source identity goes on which face: one rule for every swapper.

"main" swaps the first face, "all" every face with the active source; "map" gives the
faces, ordered left to right, the sources `swap.source_keys` lists (an empty key leaves
its face alone).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.face_records import Face
from engine.core.settings import SwapSettings


def face_x(face: Face) -> float | None:
    """Where a face sits left to right: its mesh's mean x, or its detection's centre."""
    if face.landmarks is not None:
        return float(face.landmarks[:, 0].mean())
    if face.detection is not None:
        return face.detection.center[0]
    return None


def assign_sources(faces: Sequence[Face], swap: SwapSettings) -> list[tuple[Face, str]]:
    """(face, source key) pairs to swap, per the face-selection mode."""
    if swap.face_selection == "map":
        placed = sorted(
            ((x, k) for k, f in enumerate(faces) if (x := face_x(f)) is not None),
        )
        return [
            (faces[index], key)
            for (_, index), key in zip(placed, swap.source_keys, strict=False)
            if key
        ]
    if swap.source_key is None or not faces:
        return []
    chosen = faces[:1] if swap.face_selection == "main" else faces
    return [(face, swap.source_key) for face in chosen]
