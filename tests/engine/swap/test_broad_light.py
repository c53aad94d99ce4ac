"""The target broad light's compiled passes against the NumPy form they replace."""

from __future__ import annotations

import numpy as np

from engine.render.composite import SPLIT_LOW, box
from engine.swap.broad_light import add_broad_difference, masked_difference
from engine.swap.renderer import _target_broad_light

RNG = np.random.default_rng(11)
SHAPE = (23, 19)


def _inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    image = RNG.uniform(0, 255, (*SHAPE, 3)).astype(np.float32)
    own = RNG.uniform(0, 255, (*SHAPE, 3)).astype(np.float32)
    coverage = RNG.uniform(0, 1, SHAPE) > 0.3
    features = RNG.uniform(0, 1, SHAPE).astype(np.float32)
    return image, own, coverage, features


def test_the_compiled_passes_are_the_numpy_arithmetic_bit_for_bit() -> None:
    image, own, coverage, features = _inputs()
    weight = coverage.astype(np.float32)
    both = masked_difference(own, image, weight)
    np.testing.assert_array_equal(both[..., :3], (own - image) * weight[..., None])
    np.testing.assert_array_equal(both[..., 3], weight)
    sums = RNG.uniform(-50, 50, (*SHAPE, 3)).astype(np.float32)
    weight_sum = RNG.uniform(0, 1, SHAPE).astype(np.float32)
    amount, chroma = 0.35, 0.8
    ours = add_broad_difference(
        image, np.dstack([sums, weight_sum]), features, weight, amount, chroma
    )
    assert ours.dtype == np.float32
    expected = _numpy_form(image, sums, weight_sum, features, weight, amount, chroma)
    np.testing.assert_array_equal(ours, expected)


def _numpy_form(
    image: np.ndarray,
    sums: np.ndarray,
    weight_sum: np.ndarray,
    features: np.ndarray,
    weight: np.ndarray,
    amount: float = 0.35,
    chroma: float = 0.8,
) -> np.ndarray:
    """`add_broad_difference` as NumPy, in float32 and in its order of operations."""
    f32 = np.float32
    norm = f32(1.0) / (weight_sum + f32(1e-4))
    keep = (f32(1.0) - features) * weight * norm
    grey = f32(0.114) * sums[..., 0] + f32(0.587) * sums[..., 1] + f32(0.299) * sums[..., 2]
    change = f32(amount) * grey[..., None] + f32(chroma) * (sums - grey[..., None])
    return image + keep[..., None] * change


def test_lightness_and_colour_take_their_own_shares() -> None:
    """A difference of lightness alone (every channel alike) moves the image by
    `amount` of it, one of colour alone (no luma) by `chroma` of it, whatever the
    other share is."""
    shape = (4, 5)
    image = np.full((*shape, 3), 100.0, np.float32)
    features = np.zeros(shape, np.float32)
    weight = np.ones(shape, np.float32)
    weight_sum = np.ones(shape, np.float32)
    lighter = np.full((*shape, 3), 40.0, np.float32)
    # B and R against G so that 0.114·b + 0.587·g + 0.299·r = 0.
    tint = np.zeros((*shape, 3), np.float32)
    tint[..., 0], tint[..., 1], tint[..., 2] = 10.0, -(0.114 * 10.0 - 0.299 * 5.0) / 0.587, -5.0
    for amount, chroma in ((0.35, 0.8), (0.8, 0.35), (0.35, 0.35)):
        sums = np.dstack([lighter, weight_sum])
        out = add_broad_difference(image, sums, features, weight, amount, chroma)
        np.testing.assert_allclose(out, 100.0 + amount * 40.0 / (1 + 1e-4), rtol=1e-5)
        sums = np.dstack([tint, weight_sum])
        out = add_broad_difference(image, sums, features, weight, amount, chroma)
        np.testing.assert_allclose(out - 100.0, chroma * tint / (1 + 1e-4), atol=1e-4)


def test_target_broad_light_is_the_masked_low_band_swap() -> None:
    """With one share for lightness and colour it is the plain swap of that share of
    the masked low band (the form before the two were split)."""
    image, own, coverage, features = _inputs()
    iod, amount = 30.0, 0.4
    weight = coverage.astype(np.float32)
    size = SPLIT_LOW * iod
    norm = 1.0 / (box(weight, size) + 1e-4)
    apart = box((own - image) * weight[..., None], size) * norm[..., None]
    expected = image + (amount * (1.0 - features) * weight)[..., None] * apart
    ours = _target_broad_light(image, own, coverage, features, iod, amount, amount)
    np.testing.assert_allclose(ours, expected.astype(np.float32), rtol=1e-5, atol=1e-3)
    # A larger colour share moves the colour further, not the lightness.
    luma = np.array([0.114, 0.587, 0.299], np.float32)
    more = _target_broad_light(image, own, coverage, features, iod, amount, 0.9)
    np.testing.assert_allclose(more @ luma, ours @ luma, rtol=1e-5, atol=1e-3)
    assert np.abs(more - ours).max() > 1.0
