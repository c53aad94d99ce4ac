"""Which part of the source's face shape moves onto the target, and how smoothly.

Identity lives in the nose, the brows and where the eyes sit; expression lives in the
lips and eyelids; the face outline must stay where the target's head is. So: nose and
brows take the source's offset (the nose further: it shows no expression), each eye
moves as a whole (its shape, and so a blink, stays the target's), lips and outline keep
the target's shape, and everything between is a harmonic (smoothest) interpolation over
the mesh.

Lips and outline do move, rigidly: with the frame that the moved skull points (nose,
eye corners) define. Whoever reads the face aligns it on those points, a landmarker as
much as a person; left where they were, the target's lips read as shifted and tilted
in the new frame. Measured on DEV+WIDE: expression 0.0288 → 0.0286, ID@1 99.5 → 100 %,
leave-source-out the same (83.6 %), seams and pose unchanged.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32
from engine.face.mesh import inside_lips, topology
from engine.face.procrustes import similarity

BROW_WEIGHT = 1.0
EYE_WEIGHT = 1.0
# The nose shows no expression, so it goes further than the rest: all the way to the
# source's nose from this shape amount on. Measured on DEV+WIDE at the default
# shape_alpha 0.3 (the rest at 0.3): nose at 0.3 → 0.6 took ID@1 98.9 → 100 % with
# leave-source-out unchanged (82.0 %); 0.6 → 1.0 took leave-source-out 82.0 → 86.9 %
# (85.2 % at 0.75), expression 0.0289 → 0.0295, pose and seams unchanged. The price: the
# re-detected mouth opens a little less when the source's nose base sits lower (up to
# 0.06 in canonical units; tests/engine/swap/test_engine.py).
NOSE_REACH = 0.3


class ShapeTransfer:
    def __init__(self) -> None:
        topo = topology()
        n = len(topo.uv)
        adjacency = np.zeros((n, n), np.float64)
        for a, b in ((0, 1), (1, 2), (2, 0)):
            adjacency[topo.triangles[:, a], topo.triangles[:, b]] = 1.0
            adjacency[topo.triangles[:, b], topo.triangles[:, a]] = 1.0
        laplacian = np.diag(adjacency.sum(axis=1)) - adjacency

        self.nose = topo.region("nose")
        self.brows = np.concatenate([topo.region("left_eyebrow"), topo.region("right_eyebrow")])
        self.eyes = (topo.region("left_eye"), topo.region("right_eye"))
        self.source_ids = np.unique(np.concatenate([self.nose, self.brows]))
        fixed = np.unique(
            np.concatenate(
                [
                    topo.region("face_oval"),
                    topo.region("lips_outer"),
                    topo.region("lips_inner"),
                    inside_lips(),
                ]
            )
        )
        pinned = np.unique(np.concatenate([self.source_ids, *self.eyes, fixed]))
        free = np.setdiff1d(np.arange(n), pinned)
        # Harmonic interpolation operator, solved once: offsets_free = H @ offsets_pinned.
        self._h = -np.linalg.solve(laplacian[np.ix_(free, free)], laplacian[np.ix_(free, pinned)])
        self._pinned, self._free, self._n = pinned, free, n
        self._fixed = fixed
        self._rigid, self._rigid_w = topo.rigid_ids, topo.rigid_weights
        # The skull points' offsets from the pinned ones (interpolated where free), so
        # the similarity below needs no interpolation of the whole mesh.
        full = np.zeros((n, len(pinned)))
        full[pinned, np.arange(len(pinned))] = 1.0
        full[free] = self._h
        self._rigid_from_pinned = full[self._rigid]

    def offsets(
        self, delta: NDArray[np.floating], amount: float, rest: NDArray[np.floating]
    ) -> F32:
        """Per-vertex shape offsets (468×3) from the raw source−target difference, for
        a shape `amount` (0: the target's shape, 1: the source's nose, brows and eye
        placement), on the target's pose-free landmarks `rest` (468×3)."""
        d = np.asarray(delta, np.float64)
        target = np.zeros_like(d)
        target[self.nose] = min(1.0, amount / NOSE_REACH) * d[self.nose]
        target[self.brows] = amount * BROW_WEIGHT * d[self.brows]
        for eye in self.eyes:
            target[eye] = amount * EYE_WEIGHT * d[eye].mean(axis=0)
        # Lips and outline follow the similarity that the skull points' offsets imply
        # (the free ones, cheekbones and temples, as interpolated with lips and outline
        # held still). After the skull points' own alignment the lips' misalignment is
        # then 0.35 of what it was held still; repeating it (they pull on the free
        # points in turn) took it to 0.19 for 0.2 ms more a frame, with expression the
        # same on DEV+WIDE.
        r = np.asarray(rest, np.float64)
        rigid, kept = r[self._rigid], r[self._fixed]
        moved = self._rigid_from_pinned @ target[self._pinned]
        scale, rotation, shift = similarity(rigid, rigid + moved, self._rigid_w)
        target[self._fixed] = scale * kept @ rotation.T + shift - kept
        out = target.copy()
        out[self._free] = self._h @ target[self._pinned]
        return out.astype(np.float32)


@lru_cache(maxsize=1)
def shape_transfer() -> ShapeTransfer:
    return ShapeTransfer()
