"""The render's compiled per-pixel light (engine/swap/apply_light.py) and the smooth
field's compiled robust fit (engine/swap/field_fit.py)."""

from __future__ import annotations

import numpy as np

from engine.swap.apply_light import KNEE, roll_off, shade
from engine.swap.field_fit import robust_fit
from tests.engine.swap.support import with_eye_gain


def _inputs(height: int = 6, width: int = 5) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    source = rng.uniform(20.0, 200.0, (height, width, 4)).astype(np.float32)
    source[..., 3] = rng.uniform(0.0, 1.0, (height, width))
    gain = rng.uniform(0.5, 1.5, (height, width, 3)).astype(np.float32)
    weights = np.zeros((height, width, 2), np.float32)
    weights[..., 1] = rng.uniform(0.0, 1.0, (height, width))
    coverage = np.ones((height, width), bool)
    coverage[0] = False
    return source, gain, weights, coverage


def test_the_render_is_the_albedo_times_the_gain_with_its_highlights_rolled_off() -> None:
    source, gain, weights, coverage = _inputs()
    gain[1, 1] = 3.0  # 3 × ≥ 20 … 200: some go past the knee
    image, mask, features = shade(source, gain, weights, coverage, True)
    product = source[..., :3] * gain
    below = product <= KNEE
    np.testing.assert_allclose(image[below], product[below], rtol=1e-6)
    above = image[~below]
    assert np.all(above > KNEE) and np.all(above < 255.0)
    assert np.all(above < product[~below])
    # The masks ride along, and are 0 where the face does not cover the pixel.
    np.testing.assert_array_equal(mask[coverage], source[..., 3][coverage])
    np.testing.assert_array_equal(features[coverage], weights[..., 1][coverage])
    assert not mask[~coverage].any() and not features[~coverage].any()


def test_without_relighting_the_albedo_is_left_as_it_is() -> None:
    source, _, weights, coverage = _inputs()
    image, _, _ = shade(source, np.ones((1, 1, 3), np.float32), weights, coverage, False)
    np.testing.assert_array_equal(image, source[..., :3])


def test_the_roll_off_is_continuous_with_slope_one_at_the_knee_and_stays_under_white() -> None:
    assert roll_off(100.0) == 100.0
    eps = 1e-3
    assert abs((roll_off(KNEE + eps) - roll_off(KNEE)) / eps - 1.0) < 1e-2
    assert roll_off(1e6) < 255.0 and roll_off(300.0) > roll_off(260.0)


def test_the_eyes_gain_over_eye_pixels_is_the_same_per_pixel_as_on_a_map() -> None:
    """`shade` applies the eyes' own gain per pixel; it is `with_eye_gain`'s."""
    source, gain, weights, coverage = _inputs()
    weights[..., 0] = np.linspace(0.0, 1.0, weights.shape[1])[None, :]
    image, _, _ = shade(source, gain, weights, coverage, True)
    expected = np.minimum(source[..., :3] * with_eye_gain(gain, weights[..., 0]), KNEE)
    low = expected < KNEE  # compare where no roll-off applies
    np.testing.assert_allclose(image[low], expected[low], rtol=1e-5)
    # Away from the eyes the skin's gain is untouched; on them it differs.
    np.testing.assert_allclose(with_eye_gain(gain, weights[..., 0])[:, 0], gain[:, 0])
    assert not np.allclose(with_eye_gain(gain, weights[..., 0])[:, -1], gain[:, -1])


def _quadratic(n: int) -> np.ndarray:
    u, v = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    u, v = u.ravel(), v.ravel()
    return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)


def test_the_robust_fit_is_weighted_least_squares_without_re_weighting() -> None:
    basis = _quadratic(12)
    rng = np.random.default_rng(0)
    values = rng.normal(size=(len(basis), 3))
    prior = rng.uniform(0.1, 1.0, len(basis))
    fitted = robust_fit(basis, values, prior, 0.25, 2, 0)
    weighted = basis * prior[:, None]
    expected = np.linalg.solve(weighted.T @ basis + np.eye(6) * 1e-3, weighted.T @ values)
    np.testing.assert_allclose(fitted, expected, rtol=1e-9, atol=1e-12)


def test_the_robust_fit_ignores_an_outlier_region() -> None:
    """A smooth field plus a dark blob over a tenth of the texels (a beard, a shadow):
    the robust fit recovers the field; the plain one is pulled by the blob."""
    basis = _quadratic(24)
    truth = np.array(
        [
            [5.0, 4.8, 4.6],
            [0.3, 0.2, 0.1],
            [-0.2, -0.2, -0.1],
            [-0.1, 0.0, 0.0],
            [0.05, 0.0, 0.0],
            [-0.3, -0.2, -0.2],
        ]
    )
    values = basis @ truth
    u, v = basis[:, 1], basis[:, 2]
    blob = (u > 0.2) & (u < 0.8) & (v > 0.1) & (v < 0.8)
    assert 0.05 < blob.mean() < 0.15
    values[blob] -= 1.0
    prior = np.ones(len(basis))
    plain = robust_fit(basis, values, prior, 0.25, 2, 0)
    robust = robust_fit(basis, values, prior, 0.25, 2, 4)
    away = ~blob
    assert np.abs(basis[away] @ plain - basis[away] @ truth).max() > 0.1
    assert np.abs(basis[away] @ robust - basis[away] @ truth).max() < 0.02
