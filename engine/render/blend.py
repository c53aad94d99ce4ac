"""The compositor's per-pixel band blend as one compiled pass (numba).

Written out in NumPy it needs a dozen full-size float temporaries per face (three ramps,
three bands); fused, it reads each input once and skips pixels the face does not reach.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core.types import F32


@njit(cache=True, nogil=True)
def with_weight(image: F32, weight: F32) -> F32:  # pragma: no cover - compiled
    """H×W×4: `image` (H×W×3) times `weight` (H×W), and the weight itself as a fourth
    channel: what a masked box filter sums, for one filter call per size instead of two
    (and the product without NumPy's three-long inner loop). The products are NumPy's."""
    height, width = weight.shape
    out = np.empty((height, width, 4), np.float32)
    for y in range(height):
        for x in range(width):
            w = weight[y, x]
            for c in range(3):
                out[y, x, c] = image[y, x, c] * w
            out[y, x, 3] = w
    return out


@njit(cache=True, nogil=True, fastmath=True)
def band_delta(
    image: F32,
    image_sums: tuple[F32, F32, F32],
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
    split k, and the face's own come as masked box sums `image_sums[k]` (H×W×4: the
    sums of image × weight, then of the weight: `with_weight`, box-filtered), divided
    here, in the same pass. Four bands: low (box 0), mid (box 1 − box 0), texture (box
    2 − box 1) and fine (the rest). Each follows its own smoothstep ramp over the
    distance `inside` from the face's edge (`starts[k]`, `widths[k]` px); the fine band
    only where `features` says so. All are cut by `keep` (1 = the target shows through)
    and zero where the face is not `covered`.

    Written out for four bands: a loop over them (with the alphas in an array) ran at
    a third of the speed."""
    height, width = inside.shape
    delta = np.zeros((height, width, 3), np.float32)
    low_sum, mid_sum, fine_sum = image_sums
    base_low, base_mid, base_fine = base_boxes
    # Reciprocals once: a division costs several multiplications, per pixel and channel.
    one = np.float32(1.0)
    start_low, start_mid, start_texture, start_fine = starts[0], starts[1], starts[2], starts[3]
    inverse_low, inverse_mid = one / widths[0], one / widths[1]
    inverse_texture, inverse_fine = one / widths[2], one / widths[3]
    for y in range(height):
        for x in range(width):
            if covered[y, x] <= 0.5:
                continue
            d = inside[y, x]
            k = 1.0 - keep[y, x]
            # Smoothstep ramps, written out.
            t_low = min(max((d - start_low) * inverse_low, 0.0), 1.0)
            t_mid = min(max((d - start_mid) * inverse_mid, 0.0), 1.0)
            t_texture = min(max((d - start_texture) * inverse_texture, 0.0), 1.0)
            t_fine = min(max((d - start_fine) * inverse_fine, 0.0), 1.0)
            a_low = t_low * t_low * (3.0 - 2.0 * t_low) * k
            a_mid = t_mid * t_mid * (3.0 - 2.0 * t_mid) * k
            a_texture = t_texture * t_texture * (3.0 - 2.0 * t_texture) * k
            a_fine = t_fine * t_fine * (3.0 - 2.0 * t_fine) * k * features[y, x]
            if a_low <= 0.0 and a_mid <= 0.0 and a_texture <= 0.0 and a_fine <= 0.0:
                continue
            per_low_weight = 1.0 / max(low_sum[y, x, 3], 1e-4)
            per_mid_weight = 1.0 / max(mid_sum[y, x, 3], 1e-4)
            per_fine_weight = 1.0 / max(fine_sum[y, x, 3], 1e-4)
            for c in range(3):
                image_low = low_sum[y, x, c] * per_low_weight
                image_mid = mid_sum[y, x, c] * per_mid_weight
                image_fine = fine_sum[y, x, c] * per_fine_weight
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
