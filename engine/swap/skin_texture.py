"""The source's skin as smooth as the target's: its blotches and lines held to the
target's own amount.

After de-lighting and evening (engine/swap/departures.py) a source's plain skin still
varies: pores, freckles, wrinkles, a photo's grain and blotches, and whatever its light
did that no smooth field or form shading could take out. Multiplied into a target's
light all of it shows, and on a target whose own skin is smooth (a young face, soft
light, a beauty-filtered webcam) it is what gives the swap away at once: grey-brown
patches and an older person's lines over a smooth face (anon_inspireface_2963_1 onto
_zy_1, one of the issue's worst pairs, and _1561_1's lines onto it). How much a face's
skin varies is the target's, as its light is: a real face's skin never varies more
than its camera and its age let it.

So both skins' variation is measured the same way, as the robust spread of their
plain skin's log lightness about their own smooth light at the light field's size:
the target's about its smooth field times its form shading (what its light does), the
source's de-lit texture about its own smooth field. Where the source's spreads more,
its plain skin's departures from its smooth field (`RESIDUAL_SIZE`, every scale from
about 0.025 inter-ocular distances up) are scaled down by the ratio. The features
(eyes, brows, lips, with a soft margin) keep their contrast: that is identity.

The render's skin texture band (the compositor's: pores, grain, stubble and fine lines,
0.03-0.10 inter-ocular distances) is then the target's own on the plain skin (`fill`,
`with_target_texture`), whichever skin is the rougher: a smooth mask on a lined head
is as false as lines on a smooth one, and scaled down by the spreads' ratio the
source's grain still mottled a young face (the ratio is measured at the light field's
size, which sees little of that band). The Likeness (`SwapSettings.likeness`) gives it
back above `OWN_TEXTURE_UNTIL`: all of the source's at 1, but for the share its skin
lacks of the target's spread, which stays the target's. Where the target's skin
cannot be measured (too few of its plain-skin texels seen squarely: a face in
profile), the source's skin is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32
from engine.render.composite import SPLIT_FINE, SPLIT_MID, box
from engine.render.uvmap import uv_map
from engine.swap import mix
from engine.swap.shading import (
    FIELD_SIZE,
    LUMA,
    feature_masks,
    luminance,
    smooth_field,
    upsample,
)

# The source's departures are scaled at this texture size: finer than the light field's
# (64², about 0.05 inter-ocular distances a texel; 128²: 0.025), so a wrinkle or a grainy patch
# follows the blotches; at 64² the lines and grain between them stayed (1561's
# nasolabial lines onto zy_1). What is finer still is the compositor's: on plain skin
# the frame keeps its own grain (engine/render/composite.py).
RESIDUAL_SIZE = 128
_PLAIN = 0.99  # plain-skin mask value from which a texel is measured
_SEEN = 0.5  # the target's texels measured: seen at least this squarely
# Fewer measured texels than this (1,000–1,300 on every DEV and WIDE photo) and the target's
# spread is not measured: too little of its skin is seen to say how it varies.
MIN_TEXELS = 200
_MAD_TO_SIGMA = 1.4826  # median absolute deviation to a normal distribution's sigma
# The target's skin texture added where the source's skin is the smoother: the
# compositor's texture band (engine/render/composite.py SPLIT_FINE, SPLIT_MID), in
# inter-ocular distances; finer than that the frame keeps its own grain anyway.
TEXTURE_BAND = (SPLIT_FINE, SPLIT_MID)
_SOFT_EDGE = 0.02  # IOD: the plain skin's edge (features, the face's rim) fades in


@dataclass(frozen=True)
class SourceSkin:
    """A source's plain-skin departures from its smooth field (log BGR, RESIDUAL_SIZE²,
    0 on the features and outside the face) and their spread."""

    departures: F32
    spread: float


def spread(log_lightness: F32, measured: NDArray[np.bool_]) -> float:
    """The robust spread (MAD, as a sigma) of `log_lightness` over the `measured` texels;
    0 when there are none."""
    values = log_lightness[measured]
    if values.size == 0:
        return 0.0
    return _MAD_TO_SIGMA * float(np.median(np.abs(values - np.median(values))))


def _log(image: F32) -> F32:
    return np.log(np.maximum(image, 0.0) + 1.0).astype(np.float32)


def source_skin(albedo: F32, skin: F32 | None = None) -> SourceSkin:
    """`albedo` (T×T×3 BGR, de-lit) as a SourceSkin; `skin` (T×T, 0..1): where the
    texture is the source's skin (its forehead hair left out), all of it when None."""
    covered = uv_map(FIELD_SIZE).covered.astype(np.float32)
    small = cv2.resize(albedo, (FIELD_SIZE, FIELD_SIZE), interpolation=cv2.INTER_AREA)
    own = covered if skin is None else covered * cv2.resize(skin, (FIELD_SIZE,) * 2)
    plain = feature_masks(FIELD_SIZE).skin * own
    field = smooth_field(small, plain)
    measured = plain > _PLAIN
    level = spread(_log(luminance(small)) - _log(luminance(field)), measured)
    fine = cv2.resize(albedo, (RESIDUAL_SIZE,) * 2, interpolation=cv2.INTER_AREA)
    departures = _log(fine) - _log(upsample(field, RESIDUAL_SIZE))
    keep = (1.0 - feature_masks(RESIDUAL_SIZE).features) * uv_map(RESIDUAL_SIZE).covered
    return SourceSkin((departures * keep[..., None]).astype(np.float32), level)


def target_spread(low: F32, light: F32, weight: F32) -> float | None:
    """The spread of the target's plain skin (`low`, its unwrap at the field's size) about
    `light` (its smooth field times its own form shading), over the texels seen squarely
    (`weight`); None when fewer than MIN_TEXELS are."""
    measured = (feature_masks(low.shape[0]).skin > _PLAIN) & (weight > _SEEN)
    if int(measured.sum()) < MIN_TEXELS:
        return None
    return spread(_log(luminance(low)) - _log(luminance(light)), measured)


def share(target: float | None, source: float) -> float:
    """How much of the source's departures to keep: the target's spread over the
    source's, at most all of them (all where either is unmeasured)."""
    if target is None or source <= 0.0:
        return 1.0
    return min(1.0, target / source)


# The Likeness up to which the render's skin texture band is all the target's own; from
# there to 1 the source's comes back. DEV+WIDE (docs/swap.md, "Your own skin texture"):
# all the target's took the eye action error from 0.0181 to 0.0172 and ID@1 from 25.8
# to 14.5 % (half of it: 0.0176, 22.6 %); rated by eye it was the more natural on 12 of
# 48 row ratings and never the less, and against half of it 5 row ratings to 1.
OWN_TEXTURE_UNTIL = 0.65


def fill(target: float | None, source: float, likeness: float) -> float:
    """How much of the render's skin texture band to replace by the target's: all of it
    up to `OWN_TEXTURE_UNTIL` likeness, less above, none at 1; never less than the
    share of the target's spread that the source's lacks (0 where the target's is
    unmeasured: the source's skin is left as it is)."""
    if target is None:
        return 0.0
    lacking = max(0.0, 1.0 - source / target) if target > 0.0 else 0.0
    own = float(np.clip((1.0 - likeness) / (1.0 - OWN_TEXTURE_UNTIL), 0.0, 1.0))
    return max(lacking, own)


def with_target_texture(image: F32, own: F32, plain: F32, iod: float, amount: float) -> F32:
    """`image` (the render, BGR on the working grid) with `amount` of its skin texture
    band replaced by the target's own (`own`: the target on the same grid; between
    `TEXTURE_BAND` inter-ocular distances, the compositor's texture band) over `plain`
    (H×W, 0..1: the plain skin, softened here at its edges). The band is of their log
    lightness ratio, taken over the plain skin only (the features never bleed into it),
    and multiplies every channel alike: a line is as dark against the skin in the
    render's light as in the target's, and no pixel crosses black (added as a
    difference of grey levels, the target's lines at a shadow's edge took a dark render
    below 0)."""
    if amount <= 0.0:
        return image
    weight = np.ascontiguousarray(plain, dtype=np.float32)
    ratio = (_log_lightness(own) - _log_lightness(image)) * weight
    # Single-channel boxes: a two-channel one, merged and split, took twice the time.
    fine, coarse = (TEXTURE_BAND[0] * iod, TEXTURE_BAND[1] * iod)
    band = box(ratio, fine) / (box(weight, fine) + 1e-4) - box(ratio, coarse) / (
        box(weight, coarse) + 1e-4
    )
    soft = cv2.GaussianBlur(weight, (0, 0), _SOFT_EDGE * iod) * weight
    factor = np.exp(np.float32(amount) * soft * band)
    return mix.scaled(np.ascontiguousarray(image, dtype=np.float32), factor)


def _log_lightness(image: F32) -> F32:
    """log(luma + 1) of a BGR image (H×W; OpenCV's transform: half NumPy's time)."""
    luma = cv2.transform(np.ascontiguousarray(image, dtype=np.float32), LUMA.reshape(1, 3))
    return np.log(np.maximum(luma.reshape(image.shape[:2]), 0.0) + 1.0).astype(np.float32)


def damped_gain(gain: F32, skin: SourceSkin, keep: float) -> F32:
    """The light `gain` (S×S×3 over the texture square) times what scales the source's
    departures to `keep` of them: at RESIDUAL_SIZE², or `gain` itself when all stay."""
    if keep >= 1.0:
        return gain
    fine = upsample(gain, RESIDUAL_SIZE) if gain.shape[0] != RESIDUAL_SIZE else gain
    return (fine * np.exp((keep - 1.0) * skin.departures)).astype(np.float32)
