"""What a tracked target's own face was measured as, kept from one of its frames to the
next (issue 31: the least CPU beside OBS, no stutter).

Two of the swap's measurements of the target are about the person and the room, not the
moment: the light on their skin (its smooth field, its play over the face's form and how
much the skin varies about it: engine/swap/renderer.py `_target_light`) and where their
beard or stubble is (engine/swap/facial_hair.py): 1.5-2 ms a frame each at 720p on the
2-core test host.
Neither changes in a thirtieth of a second, and both are kept in texture space, where
they follow the face's every move. So on a tracked face each is measured on every second
frame, the two on alternate frames: every frame pays one of them, none both. A new track
(a face found again, a cut) measures both on its first frame, so a still image and the
first frame of a clip are rendered as without a memory, to the bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.core.types import F32

# Texels across the texture square of the kept beard mask: a beard's edge is soft (the
# mask is blurred by 2 px per 60 between the eyes) and a texel here is ~0.025 IOD.
HAIR_SIZE = 128
# How far (texels) the kept mask reaches over texels no pixel of the render fell on
# (the side of a turned face): their neighbours' mean.
_FILL_SIGMA = 2.0


@dataclass(frozen=True, slots=True)
class TargetLight:
    """The target's own light as one frame measured it, in texture space."""

    field: F32  # S×S×3 BGR: its plain skin's smooth field
    coeffs: F32  # 9×3: its light's play over its own form (engine/swap/form_light.py)
    spread: float | None  # its plain skin's spread about that light (skin_texture.py)


@dataclass(slots=True)
class TargetMemory:
    """One tracked face's kept measurements (the swap stage keeps one per track)."""

    light: TargetLight | None = None
    hair: F32 | None = None  # HAIR_SIZE², 0..1: the target's beard or stubble
    frames: int = 0

    def next_frame(self) -> tuple[bool, bool]:
        """(measure the light, measure the beard) on the frame now being rendered: each
        on every second frame, on alternate frames, and whatever is not yet kept."""
        self.frames += 1
        return (
            self.light is None or self.frames % 2 == 0,
            self.hair is None or self.frames % 2 == 1,
        )


def measure_now(memory: TargetMemory | None) -> tuple[bool, bool]:
    """`memory.next_frame()`, or both measured on a face without a memory (a still)."""
    return memory.next_frame() if memory is not None else (True, True)


def to_texture(
    values: F32, uv: tuple[F32, F32], weight: F32, texture_size: int, size: int = HAIR_SIZE
) -> F32:
    """`values` (H×W, on the render's grid) gathered into texture space (size²): each
    texel the weighted mean of the pixels whose (u, v) (in texels of a `texture_size`
    texture) fall on it, as the renderer's lookups read it back (texel centres at
    integers); a texel no pixel fell on takes its neighbours' mean."""
    # Every second pixel each way: the kept mask is smooth (softened over ~2.7 grid
    # pixels), and a quarter of the samples still land about one on each texel a face's
    # render covers, for half the time (0.53 → 0.27 ms).
    values, weight = values[::2, ::2], weight[::2, ::2]
    k, half = np.float32(size / texture_size), np.float32(0.5)
    # The nearest texel, in integer arithmetic (np.rint and a float clip took 6× as long).
    cols = (uv[0][::2, ::2] * k + half).astype(np.intp)
    rows = (uv[1][::2, ::2] * k + half).astype(np.intp)
    np.clip(cols, 0, size - 1, out=cols)
    np.clip(rows, 0, size - 1, out=rows)
    rows *= size
    rows += cols
    index = rows.ravel()
    w = np.ascontiguousarray(weight, dtype=np.float64).ravel()
    sums, counts = (
        np.bincount(index, weights=a, minlength=size * size).reshape(size, size).astype(np.float32)
        for a in (values.ravel() * w, w)
    )
    near = cv2.GaussianBlur(sums, (0, 0), _FILL_SIGMA) / np.maximum(
        cv2.GaussianBlur(counts, (0, 0), _FILL_SIGMA), 1e-6
    )
    return np.where(counts > 0, sums / np.maximum(counts, 1e-6), near).astype(np.float32)
