"""The compositor's per-pixel band blend as one compiled pass (numba).

Written out in NumPy it needs a dozen full-size float temporaries per face (three ramps,
three bands); fused, it reads each input once and skips pixels the face does not reach.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.types import F32


@njit(cache=True, nogil=True, fastmath=True)
def band_delta(
    image: F32,
    image_sums: tuple[F32, F32, F32],
    image_weights: tuple[F32, F32, F32],
    base: F32,
    base_boxes: tuple[F32, F32, F32],
    inside: F32,
    covered: F32,
    keep: F32,
    features: F32,
    starts: F32,
    widths: F32,
) -> F32:  # pragma: no cover - compiled
    """How much `image` changes `base`, band by band (engine/render/composite.py).

    The three splits come coarse first: `base_boxes[k]` is the base box-filtered at
    split k, and the face's own come as masked box sums `image_sums[k]` and their
    weights `image_weights[k]` (divided here, in the same pass). Four bands: low (box
    0), mid (box 1 − box 0), texture (box 2 − box 1) and fine (the rest). Each follows
    its own smoothstep ramp over the distance `inside` from the face's edge (`starts[k]`,
    `widths[k]` px); the fine band only where `features` says so. All are cut by `keep`
    (1 = the target shows through) and zero where the face is not `covered`.

    Written out for four bands: a loop over them (with the alphas in an array) ran at
    a third of the speed."""
    height, width = inside.shape
    delta = np.zeros((height, width, 3), np.float32)
    image_low_sum, image_mid_sum, image_fine_sum = image_sums
    image_low_weight, image_mid_weight, image_fine_weight = image_weights
    base_low, base_mid, base_fine = base_boxes
    # Reciprocals once: a division costs several multiplications, per pixel and channel.
    inverse = 1.0 / widths
    for y in range(height):
        for x in range(width):
            if covered[y, x] <= 0.5:
                continue
            d = inside[y, x]
            k = 1.0 - keep[y, x]
            # Smoothstep ramps, written out.
            t_low = min(max((d - starts[0]) * inverse[0], 0.0), 1.0)
            t_mid = min(max((d - starts[1]) * inverse[1], 0.0), 1.0)
            t_texture = min(max((d - starts[2]) * inverse[2], 0.0), 1.0)
            t_fine = min(max((d - starts[3]) * inverse[3], 0.0), 1.0)
            a_low = t_low * t_low * (3.0 - 2.0 * t_low) * k
            a_mid = t_mid * t_mid * (3.0 - 2.0 * t_mid) * k
            a_texture = t_texture * t_texture * (3.0 - 2.0 * t_texture) * k
            a_fine = t_fine * t_fine * (3.0 - 2.0 * t_fine) * k * features[y, x]
            if a_low <= 0.0 and a_mid <= 0.0 and a_texture <= 0.0 and a_fine <= 0.0:
                continue
            per_low_weight = 1.0 / max(image_low_weight[y, x], 1e-4)
            per_mid_weight = 1.0 / max(image_mid_weight[y, x], 1e-4)
            per_fine_weight = 1.0 / max(image_fine_weight[y, x], 1e-4)
            for c in range(3):
                image_low = image_low_sum[y, x, c] * per_low_weight
                image_mid = image_mid_sum[y, x, c] * per_mid_weight
                image_fine = image_fine_sum[y, x, c] * per_fine_weight
                low = image_low - base_low[y, x, c]
                mid = (image_mid - image_low) - (base_mid[y, x, c] - base_low[y, x, c])
                texture = (image_fine - image_mid) - (base_fine[y, x, c] - base_mid[y, x, c])
                fine = (image[y, x, c] - image_fine) - (base[y, x, c] - base_fine[y, x, c])
                delta[y, x, c] = low * a_low + mid * a_mid + texture * a_texture + fine * a_fine
    return delta


@njit(cache=True, nogil=True, fastmath=True)
def add_resampled_rows(region: np.ndarray, rows: F32) -> None:  # pragma: no cover - compiled
    """`region` (uint8, H×N: a frame rectangle's rows, pixels and channels flattened)
    += `rows` (h×N float) resampled linearly from h rows to H (cv2.resize's pixel
    centres, clamped at the edges), rounded (half up) and saturated, in place.

    The vertical half of a bilinear resize fused with the add: the frame-sized float
    image a plain resize would write (and the add read back) is never built, and the
    inner loop runs over contiguous memory, which the compiler vectorises."""
    height, count = region.shape
    rows_in = rows.shape[0]
    scale = rows_in / height
    for y in range(height):
        src = min(max((y + 0.5) * scale - 0.5, 0.0), rows_in - 1.0)
        top = int(src)
        bottom = min(top + 1, rows_in - 1)
        t = np.float32(src - top)
        upper = rows[top]
        lower = rows[bottom]
        out = region[y]
        for i in range(count):
            d = upper[i] + (lower[i] - upper[i]) * t
            value = np.float32(out[i]) + d + np.float32(0.5)
            value = min(max(value, np.float32(0.0)), np.float32(255.0))
            out[i] = np.uint8(value)  # truncation: the floor, value >= 0
