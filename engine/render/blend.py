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
    image_fine_sum: F32,
    image_fine_weight: F32,
    image_low_sum: F32,
    image_low_weight: F32,
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

    Bands: low (`*_low`), mid (`*_fine_low` − `*_low`) and fine (the rest); the face's
    own two come as masked box sums and their weights (divided here, in the same pass).
    Each follows its own smoothstep ramp over the distance `inside` from the face's edge
    (`starts[k]`, `widths[k]` px); the fine band only where `features` says so. All are
    cut by `keep` (1 = the target shows through) and zero where the face is not
    `covered`."""
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
            fine_weight = max(image_fine_weight[y, x], 1e-4)
            low_weight = max(image_low_weight[y, x], 1e-4)
            for c in range(3):
                image_fine_low = image_fine_sum[y, x, c] / fine_weight
                image_low = image_low_sum[y, x, c] / low_weight
                low = image_low - base_low[y, x, c]
                mid = (image_fine_low - image_low) - (base_fine_low[y, x, c] - base_low[y, x, c])
                fine = (image[y, x, c] - image_fine_low) - (base[y, x, c] - base_fine_low[y, x, c])
                delta[y, x, c] = low * a_low + mid * a_mid + fine * a_fine
    return delta


@njit(cache=True, nogil=True)
def _taps(  # pragma: no cover - compiled
    size_out: int, size_in: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear-interpolation taps for each output index, with cv2.resize's pixel-centre
    convention (x_in = (x_out + 0.5)·size_in / size_out − 0.5, clamped to the edges)."""
    lo = np.empty(size_out, np.int64)
    hi = np.empty(size_out, np.int64)
    t = np.empty(size_out, np.float32)
    scale = size_in / size_out
    for i in range(size_out):
        x = min(max((i + 0.5) * scale - 0.5, 0.0), size_in - 1.0)
        lo[i] = int(x)
        hi[i] = min(lo[i] + 1, size_in - 1)
        t[i] = x - lo[i]
    return lo, hi, t


@njit(cache=True, nogil=True)
def add_delta(region: np.ndarray, delta: F32) -> None:  # pragma: no cover - compiled
    """`region` (uint8, H×W×3) += `delta` resampled (linearly) onto it, rounded and
    clipped, in place. `delta` may be on a coarser grid (the working resolution): read
    where it is needed, it is never built at the frame's size. A change under half a
    grey level leaves the pixel exactly as it was; where the patch adds nothing the
    frame is untouched."""
    height, width = region.shape[:2]
    ys0, ys1, ty = _taps(height, delta.shape[0])
    xs0, xs1, tx = _taps(width, delta.shape[1])
    for y in range(height):
        y0, y1, wy = ys0[y], ys1[y], ty[y]
        for x in range(width):
            x0, x1, wx = xs0[x], xs1[x], tx[x]
            for c in range(3):
                top = delta[y0, x0, c] + (delta[y0, x1, c] - delta[y0, x0, c]) * wx
                bottom = delta[y1, x0, c] + (delta[y1, x1, c] - delta[y1, x0, c]) * wx
                d = top + (bottom - top) * wy
                if d == 0.0:
                    continue
                value = np.float32(region[y, x, c]) + d + np.float32(0.5)
                value = min(max(value, np.float32(0.0)), np.float32(255.0))
                region[y, x, c] = np.uint8(value)  # truncation: the floor, value >= 0
