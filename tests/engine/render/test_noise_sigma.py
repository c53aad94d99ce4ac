"""engine.render.detail.noise_sigma: the grain level the enhancer matches, per pixel."""

from __future__ import annotations

import numpy as np
import pytest

from engine.render.detail import noise_sigma


@pytest.mark.parametrize("sigma", [2.0, 5.0, 12.0])
def test_it_reads_the_sigma_of_white_noise(sigma: float) -> None:
    rng = np.random.default_rng(0)
    gray = 128.0 + rng.normal(0.0, sigma, (256, 256))
    everywhere = np.ones(gray.shape, bool)
    assert noise_sigma(gray, everywhere) == pytest.approx(sigma, rel=0.04)


def test_a_clean_picture_reads_no_noise_and_edges_barely_count() -> None:
    rng = np.random.default_rng(1)
    flat = np.full((200, 200), 90.0)
    everywhere = np.ones(flat.shape, bool)
    assert noise_sigma(flat, everywhere) == 0.0
    # A few strong edges (a face's outline, its lids) on noise of sigma 4: the median
    # keeps them out of the estimate.
    noisy = flat + rng.normal(0.0, 4.0, flat.shape)
    noisy[:, 100:] += 80.0
    noisy[60, :] += 60.0
    assert noise_sigma(noisy, everywhere) == pytest.approx(4.0, rel=0.08)


def test_only_the_masked_pixels_count() -> None:
    rng = np.random.default_rng(2)
    gray = np.full((128, 128), 100.0)
    gray[:, 64:] += rng.normal(0.0, 6.0, (128, 64))
    left = np.zeros(gray.shape, bool)
    left[:, :60] = True
    right = np.zeros(gray.shape, bool)
    right[:, 68:] = True
    assert noise_sigma(gray, left) == 0.0
    assert noise_sigma(gray, right) == pytest.approx(6.0, rel=0.06)
