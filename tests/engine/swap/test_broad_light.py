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
    amount = 0.35
    expected = image + (amount * (1.0 - features) * weight)[..., None] * (
        sums * (1.0 / (weight_sum + 1e-4))[..., None]
    )
    ours = add_broad_difference(image, np.dstack([sums, weight_sum]), features, weight, amount)
    assert ours.dtype == np.float32
    np.testing.assert_array_equal(ours, expected)


def test_target_broad_light_is_the_masked_low_band_swap() -> None:
    image, own, coverage, features = _inputs()
    iod, amount = 30.0, 0.4
    weight = coverage.astype(np.float32)
    size = SPLIT_LOW * iod
    norm = 1.0 / (box(weight, size) + 1e-4)
    apart = box((own - image) * weight[..., None], size) * norm[..., None]
    expected = image + (amount * (1.0 - features) * weight)[..., None] * apart
    ours = _target_broad_light(image, own, coverage, features, iod, amount)
    np.testing.assert_array_equal(ours, expected.astype(np.float32))
