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

    Row by row: first each pixel's four alphas and three reciprocal weights, in loops
    without branches over contiguous rows (which the compiler vectorises), then the
    bands, channel by channel, where any alpha is above zero. In one loop over the
    pixels the pass took 0.71 ms on a 720p face's patch, this way 0.44-0.51 (the 2-core
    machine). Written out for four bands: a loop over them (with the alphas in an
    array) ran at a third of the speed."""
    height, width = inside.shape
    delta = np.zeros((height, width, 3), np.float32)
    low_sum, mid_sum, fine_sum = image_sums
    base_low, base_mid, base_fine = base_boxes
    zero, half, one = np.float32(0.0), np.float32(0.5), np.float32(1.0)
    two, three, tiny = np.float32(2.0), np.float32(3.0), np.float32(1e-4)
    start_low, start_mid, start_texture, start_fine = starts[0], starts[1], starts[2], starts[3]
    # Reciprocals once: a division costs several multiplications, per pixel and channel.
    inverse_low, inverse_mid = one / widths[0], one / widths[1]
    inverse_texture, inverse_fine = one / widths[2], one / widths[3]
    a_low = np.empty(width, np.float32)
    a_mid = np.empty(width, np.float32)
    a_texture = np.empty(width, np.float32)
    a_fine = np.empty(width, np.float32)
    per_low = np.empty(width, np.float32)
    per_mid = np.empty(width, np.float32)
    per_fine = np.empty(width, np.float32)
    for y in range(height):
        inside_row, keep_row, covered_row = inside[y], keep[y], covered[y]
        features_row = features[y]
        for x in range(width):
            d = inside_row[x]
            k = (one - keep_row[x]) * (one if covered_row[x] > half else zero)
            # Smoothstep ramps, written out.
            t_low = min(max((d - start_low) * inverse_low, zero), one)
            t_mid = min(max((d - start_mid) * inverse_mid, zero), one)
            t_texture = min(max((d - start_texture) * inverse_texture, zero), one)
            t_fine = min(max((d - start_fine) * inverse_fine, zero), one)
            a_low[x] = t_low * t_low * (three - two * t_low) * k
            a_mid[x] = t_mid * t_mid * (three - two * t_mid) * k
            a_texture[x] = t_texture * t_texture * (three - two * t_texture) * k
            a_fine[x] = t_fine * t_fine * (three - two * t_fine) * k * features_row[x]
        low_row, mid_row, fine_row = low_sum[y], mid_sum[y], fine_sum[y]
        for x in range(width):
            per_low[x] = one / max(low_row[x, 3], tiny)
            per_mid[x] = one / max(mid_row[x, 3], tiny)
            per_fine[x] = one / max(fine_row[x, 3], tiny)
        image_row, base_row, out = image[y], base[y], delta[y]
        base_low_row, base_mid_row, base_fine_row = base_low[y], base_mid[y], base_fine[y]
        for x in range(width):
            if a_low[x] <= zero and a_mid[x] <= zero and a_texture[x] <= zero and a_fine[x] <= zero:
                continue
            for c in range(3):
                image_low = low_row[x, c] * per_low[x]
                image_mid = mid_row[x, c] * per_mid[x]
                image_fine = fine_row[x, c] * per_fine[x]
                low = image_low - base_low_row[x, c]
                mid = (image_mid - image_low) - (base_mid_row[x, c] - base_low_row[x, c])
                texture = (image_fine - image_mid) - (base_fine_row[x, c] - base_mid_row[x, c])
                fine = (image_row[x, c] - image_fine) - (base_row[x, c] - base_fine_row[x, c])
                out[x, c] = (
                    low * a_low[x] + mid * a_mid[x] + texture * a_texture[x] + fine * a_fine[x]
                )
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
