"""`channel_scaled`, match_tone's per-channel gain, against the broadcast product."""

from __future__ import annotations

import numpy as np

from engine.swap.shading import channel_scaled, match_tone


def test_channel_scaled_is_the_broadcast_product_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    image = rng.uniform(0, 255, (7, 9, 3)).astype(np.float32)
    gain = np.array([1.3, 0.7, 1.01], np.float32)
    ours = channel_scaled(image, gain)
    assert ours.shape == image.shape and ours.dtype == np.float32
    np.testing.assert_array_equal(ours, image * gain)
    strided = rng.uniform(0, 255, (7, 9, 4)).astype(np.float32)[..., :3]  # not contiguous
    np.testing.assert_array_equal(channel_scaled(strided, gain), strided * gain)


def test_match_tone_scales_plain_skin_to_the_targets_median() -> None:
    rng = np.random.default_rng(6)
    image = rng.uniform(50, 150, (20, 20, 3)).astype(np.float32)
    target = image * np.array([1.2, 0.9, 1.1], np.float32)
    plain = np.ones((20, 20), bool)
    eyes = np.zeros((20, 20), np.float32)
    eyes[:2, :2] = 1.0  # the eyes take half the gain in log terms
    out = match_tone(image, target, plain, eyes)
    gain = np.array([1.2, 0.9, 1.1], np.float32)
    np.testing.assert_allclose(out[5:, 5:], target[5:, 5:], rtol=1e-5)
    np.testing.assert_allclose(out[:2, :2], image[:2, :2] * np.sqrt(gain), rtol=1e-5)
