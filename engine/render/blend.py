"""The compositor's per-pixel band blend as one compiled pass (numba).

Written out in NumPy it needs a dozen full-size float temporaries per face (three ramps,
three bands); fused, it reads each input once and skips pixels the face does not reach.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.types import F32


@njit(cache=True, nogil=True)
def _smoothstep(x: float) -> float:  # pragma: no cover - compiled
    t = min(max(x, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@njit(cache=True, nogil=True)
def band_delta(
    image: F32,
    image_fine_low: F32,
    image_low: F32,
    base: F32,
    base_fine_low: F32,
    base_low: F32,
    inside: F32,
    covered: F32,
    keep: F32,
    features: F32,
    starts: F32,
    widths: F32,
) -> F32:  # pragma: no cover - compiled
    """How much `image` changes `base`, band by band (engine/render/composite.py).

    Bands: low (`*_low`), mid (`*_fine_low` − `*_low`) and fine (the rest). Each follows
    its own smoothstep ramp over the distance `inside` from the face's edge (`starts[k]`,
    `widths[k]` px); the fine band only where `features` says so. All are cut by `keep`
    (1 = the target shows through) and zero where the face is not `covered`."""
    height, width = inside.shape
    delta = np.zeros((height, width, 3), np.float32)
    for y in range(height):
        for x in range(width):
            if covered[y, x] <= 0.5:
                continue
            d = inside[y, x]
            k = 1.0 - keep[y, x]
            a_low = _smoothstep((d - starts[0]) / widths[0]) * k
            a_mid = _smoothstep((d - starts[1]) / widths[1]) * k
            a_fine = _smoothstep((d - starts[2]) / widths[2]) * k * features[y, x]
            if a_low <= 0.0 and a_mid <= 0.0 and a_fine <= 0.0:
                continue
            for c in range(3):
                low = image_low[y, x, c] - base_low[y, x, c]
                mid = (image_fine_low[y, x, c] - image_low[y, x, c]) - (
                    base_fine_low[y, x, c] - base_low[y, x, c]
                )
                fine = (image[y, x, c] - image_fine_low[y, x, c]) - (
                    base[y, x, c] - base_fine_low[y, x, c]
                )
                delta[y, x, c] = low * a_low + mid * a_mid + fine * a_fine
    return delta
