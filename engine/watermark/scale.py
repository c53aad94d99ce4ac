"""The scale a frame was resized by, from the period of its tiles.

The mark repeats every TILE_PX pixels, so the whitened luma's autocorrelation peaks at
the tile period (and its multiples) along each axis; on a frame scaled by s that period
is s·TILE_PX. The candidates are the periods whose multiples stand out most, refined
to a fraction of a pixel with their harmonics (folding the whole frame needs the scale
to about 0.1 %).
"""

from __future__ import annotations

import numpy as np

from engine.watermark.pattern import F32, TILE_PX

MIN_SCALE, MAX_SCALE = 0.3, 2.0
_PER_AXIS = 3  # best periods kept per axis


def _profile(detail: F32) -> tuple[F32, F32]:
    """The autocorrelation along x and along y (zero-padded, so not circular), each
    normalised by how many pixel pairs went into every lag."""
    height, width = detail.shape
    spectrum = np.fft.rfft2(detail, s=(2 * height, 2 * width))
    acf = np.fft.irfft2(spectrum * np.conj(spectrum), s=(2 * height, 2 * width))
    along_x = acf[0, :width] / (height * (width - np.arange(width)))
    along_y = acf[:height, 0] / (width * (height - np.arange(height)))
    return along_x.astype(np.float32), along_y.astype(np.float32)


def _peak_at(profile: F32, lag: float, reach: int = 2) -> float | None:
    """The sub-pixel position of the highest point within `reach` of `lag`."""
    lo, hi = round(lag) - reach, round(lag) + reach + 1
    if lo < 1 or hi >= profile.size - 1:
        return None
    i = lo + int(np.argmax(profile[lo:hi]))
    left, mid, right = profile[i - 1], profile[i], profile[i + 1]
    curve = left - 2 * mid + right
    return i + (0.5 * (left - right) / curve if curve < 0 else 0.0)


def _refine(profile: F32, lag: float) -> float:
    """The period, fitted through the peaks at its multiples that the frame holds."""
    ks, peaks = [1.0], [lag]
    k = 2
    while k * lag < profile.size - 3:
        found = _peak_at(profile, k * lag * (peaks[-1] / ks[-1]) / lag)
        if found is None:
            break
        ks.append(float(k))
        peaks.append(found)
        k += 1
    kv, pv = np.array(ks), np.array(peaks)
    return float((kv * pv).sum() / (kv * kv).sum())


def _lifted(profile: F32) -> F32:
    """The profile over its local level: compression block grids and textures lift whole
    stretches of lags, the tile period is a narrow spike."""
    level = np.empty_like(profile)
    for i in range(profile.size):
        level[i] = np.median(profile[max(0, i - 6) : i + 7])
    return profile - level


def axis_scales(profile: F32) -> list[float]:
    """The most likely tile periods along one axis, as scales, best first.

    A period P lifts the profile at P, 2P, 3P…; each candidate is scored by its
    harmonics' sum over the square root of their count, which the true period wins:
    its double sees half the harmonics (same mean, lower score), its half sees the
    true ones plus as many empty lags (half the mean)."""
    lo = max(2, int(MIN_SCALE * TILE_PX))
    hi = min(int(MAX_SCALE * TILE_PX), int(0.6 * profile.size))
    if hi <= lo + 2:
        return []
    lifted = _lifted(profile[: int(0.6 * profile.size) + 2])
    limit = lifted.size - 2
    scores = np.full(hi + 1, -np.inf)
    for period in range(lo, hi + 1):
        lags = np.arange(period, limit, period)
        if lags.size == 0:
            continue
        # Within a lag of each multiple: the period is not a whole number of pixels.
        near = np.maximum(np.maximum(lifted[lags - 1], lifted[lags]), lifted[lags + 1])
        scores[period] = near.sum() / np.sqrt(lags.size)
    best = np.argsort(scores)[::-1]
    picked: list[int] = []
    for period in best:
        if len(picked) == _PER_AXIS:
            break
        if all(abs(int(period) - q) > 2 for q in picked):
            picked.append(int(period))
    scales = []
    for period in picked:
        # On the lifted profile: the raw one falls steeply at short lags, which would
        # pull every peak towards zero.
        peak = _peak_at(lifted, float(period), reach=1)
        if peak is None:
            continue
        scale = _refine(lifted, peak) / TILE_PX
        # A fit through noise can land anywhere; only scales this search covers count.
        if MIN_SCALE * 0.9 <= scale <= MAX_SCALE * 1.1:
            scales.append(scale)
    return scales


def scale_candidates(detail: F32) -> list[tuple[float, float]]:
    """(x, y) scales worth trying, most likely first: each axis's peaks, paired with
    each other and with themselves (a resize usually keeps the aspect ratio)."""
    along_x, along_y = _profile(detail)
    xs, ys = axis_scales(along_x), axis_scales(along_y)
    pairs: list[tuple[float, float]] = []
    for sx in xs:
        for sy in ys:
            pairs.append((sx, sy))
    for s in [*xs, *ys]:
        pairs.append((s, s))
    unique: list[tuple[float, float]] = []
    for pair in pairs:
        if all(abs(pair[0] - u[0]) + abs(pair[1] - u[1]) > 1e-3 for u in unique):
            unique.append(pair)
    return unique
