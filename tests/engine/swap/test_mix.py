"""The compiled mixes give the NumPy forms' bits (engine/swap/mix.py)."""

from __future__ import annotations

import numpy as np

from engine.swap import mix


def _arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    image = (rng.random((37, 29, 3)) * 255).astype(np.float32)
    other = (rng.random((37, 29, 3)) * 255).astype(np.float32)
    weight = rng.random((37, 29)).astype(np.float32)
    weight[::3] = 0.0  # nil rows: copied, not mixed
    return image, other, weight


def test_towards_is_the_numpy_blend_bit_for_bit() -> None:
    image, other, weight = _arrays()
    expected = image + weight[..., None] * (other - image)
    got = mix.towards(image, other, weight)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)


def test_scaled_is_the_numpy_product_bit_for_bit() -> None:
    image, _, weight = _arrays()
    got = mix.scaled(image, weight)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, image * weight[..., None])
