"""The compositor's per-pixel blend as one compiled pass (numba).

Written out in NumPy it needs a dozen full-size float temporaries per face (two ramps,
two bands, rounding); fused, it reads each input once and skips
pixels whose alphas are both zero, which also leaves them bit-exact.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from engine.core.types import F32


@njit(cache=True, nogil=True)
def _smoothstep(x: float) -> float:  # pragma: no cover - compiled
    t = min(max(x, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@njit(cache=True, nogil=True)
def two_band_blend(
    out: NDArray[np.uint8],
    image: F32,
    image_low: F32,
    base_low: F32,
    inside: F32,
    covered: F32,
    keep: F32,
    colour_start: float,
    texture_start: float,
    ramp_width: float,
) -> None:  # pragma: no cover - compiled
    """Blend `image` into `out` (uint8 view, modified in place).

    Low frequencies follow the colour ramp, fine detail the texture ramp (which starts
    further inside). Alphas are cut by `keep` (target pixels to keep, 1 = keep) and by
    coverage."""
    height, width = inside.shape
    inv_width = 1.0 / ramp_width
    for y in range(height):
        for x in range(width):
            if covered[y, x] <= 0.5:
                continue
            d = inside[y, x]
            k = 1.0 - keep[y, x]
            a = _smoothstep((d - colour_start) * inv_width) * k
            t = _smoothstep((d - texture_start) * inv_width) * k
            if a <= 0.0 and t <= 0.0:
                continue
            for c in range(3):
                base = float(out[y, x, c])
                low = image_low[y, x, c] - base_low[y, x, c]
                detail = (image[y, x, c] - image_low[y, x, c]) - (base - base_low[y, x, c])
                value = base + low * a + detail * t + 0.5
                out[y, x, c] = np.uint8(min(max(value, 0.0), 255.0))


@njit(cache=True, nogil=True)
def three_band_blend(
    out: NDArray[np.uint8],
    image: F32,
    image_fine_low: F32,
    image_low: F32,
    base_fine_low: F32,
    base_low: F32,
    inside: F32,
    covered: F32,
    keep: F32,
    features: F32,
    starts: F32,
    widths: F32,
) -> None:  # pragma: no cover - compiled
    """Blend `image` into `out` (uint8 view, in place) band by band.

    Bands: low (`*_low`), mid (`*_fine_low` − `*_low`) and fine (the rest). Each has
    its own smoothstep ramp over the distance `inside` from the face's edge
    (`starts[k]`, `widths[k]` px): a wide one for the low band hides a difference in
    light or colour at the edge, narrow ones keep the source's features close to it."""
    height, width = inside.shape
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
                base = float(out[y, x, c])
                low = image_low[y, x, c] - base_low[y, x, c]
                mid = (image_fine_low[y, x, c] - image_low[y, x, c]) - (
                    base_fine_low[y, x, c] - base_low[y, x, c]
                )
                fine = (image[y, x, c] - image_fine_low[y, x, c]) - (base - base_fine_low[y, x, c])
                value = base + low * a_low + mid * a_mid + fine * a_fine + 0.5
                out[y, x, c] = np.uint8(min(max(value, 0.0), 255.0))
