"""Finding the mark: whiten the luma, fold it onto one tile, correlate with the sync chips.

Folding sums every tile of the frame onto one (the tiles all carry the same pattern, the
picture under them does not add up), so the whole frame votes and any crop that keeps a
tile or two still reads. The tile's offset is where the circular correlation with the
sync chips peaks; its height over the correlation's spread is the confidence (a z-score:
about 4 on an unmarked picture, where the highest of 16384 random offsets lands). The
payload bits are then read from the data chips at that offset and must pass their CRC.

A scaled frame (a 50 % downscale, a player's resize) is first put back on the pattern's
grid: the tiles repeat, so the luma's autocorrelation peaks at the tile period in each
direction (engine.watermark.scale), and every candidate scale is tried.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import Frame
from engine.watermark.pattern import CHIP_PX, F32, GRID, TILE_PX, known_template, layout
from engine.watermark.payload import PAYLOAD_BITS, Payload, decode_soft
from engine.watermark.scale import MIN_SCALE, scale_candidates

# z-score the correlation peak must reach. Unmarked pictures peak near 4 (the highest of
# 16384 near-Gaussian offsets, a few scales each; 4.7 the most over ../shared/testdata);
# the payload's fixed bits are a second gate (engine.watermark.payload).
THRESHOLD = 6.0
_MIN_SIDE_PX = 64
# Pictures with a side under this have their scale swept (_sweep), at SWEEP_STEP apart,
# and a mark found so must reach SWEEP_THRESHOLD: the sweep tries about 60 scales more,
# and each brings 16384 more offsets for chance to peak at.
SWEEP_BELOW_PX = 160
SWEEP_STEP = 1.02
SWEEP_THRESHOLD = 7.0
# The whitening's local power: measured over a Gaussian of this sigma (px; 8 px mixed an
# edge's power into the calm skin beside it, and small pictures lost half their
# confidence), plus a floor (grey levels²) so flat areas are not blown up.
_LOCAL_SIGMA_PX, _LOCAL_FLOOR = 2.0, 1.0  # smaller than half a tile: nothing to fold


@dataclass(frozen=True, slots=True)
class Detection:
    marked: bool
    confidence: float  # the sync peak's z-score
    payload: Payload | None
    payload_bits: int  # of the payload's 96 bits, how many read as they were written
    scale: tuple[float, float]  # the frame's scale relative to the mark (x, y)
    offset_px: tuple[int, int]  # where the tile starts, on the mark's grid
    swept: bool = False  # the scale was found by trying many (a higher threshold)
    # Not found, in a picture under one tile (TILE_PX) on a side: a marked picture that
    # small (a tiny still cropped, say) can read too faintly, so "not marked" would
    # say more than was seen.
    too_small: bool = False

    def describe(self) -> str:
        what = "marked" if self.marked else "not marked"
        if self.too_small:
            what = f"too small to decide (under {TILE_PX} px on a side)"
        threshold = SWEEP_THRESHOLD if self.swept else THRESHOLD
        text = f"{what} (confidence {self.confidence:.1f}, threshold {threshold:g})"
        if self.payload is not None:
            text += f"; payload: {self.payload.describe()} ({self.payload_bits}/96 bits)"
        if self.marked and self.scale != (1.0, 1.0):
            text += f"; scale {self.scale[0]:.3f}×{self.scale[1]:.3f}"
        return text


NOT_MARKED = Detection(False, 0.0, None, 0, (1.0, 1.0), (0, 0))


def luma(frame: Frame) -> F32:
    if frame.ndim == 2:
        return frame.astype(np.float32)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)


def whiten(gray: F32) -> F32:
    """The picture's detail at the chips' scale (a band-pass: finer grain is mostly
    compression noise, coarser is the picture), weighted by the inverse of its local
    power: where the picture is busy its detail outweighs the mark, where it is calm
    the mark stands out (the matched filter for noise whose strength varies)."""
    detail = cv2.GaussianBlur(gray, (0, 0), 0.7) - cv2.GaussianBlur(gray, (0, 0), 2.5)
    local = cv2.GaussianBlur(detail * detail, (0, 0), _LOCAL_SIGMA_PX)
    return (detail / (local + _LOCAL_FLOOR)).astype(np.float32)


def fold(detail: F32) -> F32:
    height, width = detail.shape
    ny, nx = -(-height // TILE_PX), -(-width // TILE_PX)
    padded = np.zeros((ny * TILE_PX, nx * TILE_PX), dtype=np.float32)
    padded[:height, :width] = detail
    return padded.reshape(ny, TILE_PX, nx, TILE_PX).sum(axis=(0, 2))


def _regrid(gray: F32, scale: tuple[float, float]) -> F32:
    """`gray` (a frame at `scale` of the marked one) resampled onto the mark's grid."""
    sx, sy = scale
    if abs(sx - 1.0) < 1e-6 and abs(sy - 1.0) < 1e-6:
        return gray
    height, width = gray.shape
    size = (round(width / sx), round(height / sy))
    matrix = np.array([[sx, 0.0, 0.5 * sx - 0.5], [0.0, sy, 0.5 * sy - 0.5]], dtype=np.float64)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return cv2.warpAffine(gray, matrix, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)


def _read(folded: F32, scale: tuple[float, float]) -> Detection:
    template = known_template()
    spectrum = np.fft.rfft2(folded) * np.conj(np.fft.rfft2(template))
    corr = np.fft.irfft2(spectrum, s=folded.shape)
    std = float(corr.std())
    if std <= 0:
        return NOT_MARKED
    peak = int(np.argmax(corr))
    oy, ox = divmod(peak, TILE_PX)
    z = float((corr.flat[peak] - corr.mean()) / std)
    aligned = np.roll(folded, (-oy, -ox), axis=(0, 1))
    chips = aligned.reshape(GRID, CHIP_PX, GRID, CHIP_PX).sum(axis=(1, 3))
    lay = layout()
    data = ~lay.sync
    weights = (chips * lay.sign)[data]
    soft: NDArray[np.float64] = np.asarray(
        np.bincount(lay.bit[data], weights=weights, minlength=PAYLOAD_BITS), dtype=np.float64
    )
    reading = decode_soft(soft)
    marked = z >= THRESHOLD and reading.payload is not None
    payload = reading.payload if marked else None
    return Detection(marked, z, payload, reading.agreeing_bits, scale, (ox, oy))


def detect(frame: Frame) -> Detection:
    """Whether `frame` (BGR or grey uint8) carries the mark, at any scale from about
    0.3 to 2 and any crop that keeps at least one tile; a picture under one tile on a
    side that shows no mark is `too_small` to decide."""
    gray = luma(frame)
    found = _search(gray) if min(gray.shape) >= _MIN_SIDE_PX else NOT_MARKED
    if not found.marked and min(gray.shape) < TILE_PX:
        return replace(found, too_small=True)
    return found


def _search(gray: F32) -> Detection:
    best = NOT_MARKED
    for scale in [(1.0, 1.0), *scale_candidates(whiten(gray))]:
        found = _read(fold(whiten(_regrid(gray, scale))), scale)
        if found.marked:
            return found
        if found.confidence > best.confidence:
            best = found
    if min(gray.shape) < SWEEP_BELOW_PX:
        swept = _sweep(gray)
        if swept.marked or swept.confidence > best.confidence:
            return swept
    return best


def _sweep(gray: F32) -> Detection:
    """A small picture's scale by trying them: under about two and a half tile periods
    the autocorrelation has too few repeats to show the period. Isotropic scales from
    MIN_SCALE to 1 in steps of SWEEP_STEP (a fold reads within about 1 % of the true
    scale), the best refined by half steps; more hypotheses, so a higher threshold."""
    count = int(np.ceil(np.log(1.0 / MIN_SCALE) / np.log(SWEEP_STEP)))
    scales = MIN_SCALE * SWEEP_STEP ** np.arange(count)
    best, best_scale = NOT_MARKED, 1.0
    for s in scales.tolist():
        found = _read(fold(whiten(_regrid(gray, (s, s)))), (s, s))
        if found.confidence > best.confidence:
            best, best_scale = found, s
    for s in (best_scale / np.sqrt(SWEEP_STEP), best_scale * np.sqrt(SWEEP_STEP)):
        found = _read(fold(whiten(_regrid(gray, (s, s)))), (s, s))
        if found.confidence > best.confidence:
            best = found
    marked = best.marked and best.confidence >= SWEEP_THRESHOLD
    return Detection(
        marked,
        best.confidence,
        best.payload if marked else None,
        best.payload_bits,
        best.scale,
        best.offset_px,
        swept=True,
    )
