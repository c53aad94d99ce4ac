"""The renderer's coordinate maps and lookups against their plain NumPy/OpenCV forms.

They are written axis by axis for speed (engine/swap/renderer.py `_axes_to_grid`); the
results must be the straightforward ones, bit for bit.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.swap.renderer import _axes_to_grid, _lookup, _to_grid, _uv_maps

RNG = np.random.default_rng(7)
ORIGIN = np.array([31.0, 17.0], np.float32)
SCALE = np.array([0.37, 0.41], np.float32)


def _reference_to_grid(points: np.ndarray) -> np.ndarray:
    return (points - ORIGIN + 0.5) * SCALE - 0.5


def test_to_grid_is_the_pixel_centre_formula() -> None:
    points = RNG.uniform(0, 200, (9, 7, 2)).astype(np.float32)
    ours = _to_grid(points, ORIGIN, SCALE)
    assert ours.shape == points.shape and ours.dtype == np.float32
    np.testing.assert_array_equal(ours, _reference_to_grid(points))
    landmarks = RNG.uniform(0, 200, (478, 2)).astype(np.float32)
    np.testing.assert_array_equal(_to_grid(landmarks, ORIGIN, SCALE), _reference_to_grid(landmarks))


def test_axes_to_grid_on_a_strided_map_is_to_grid_split() -> None:
    per_pixel = RNG.uniform(0, 200, (6, 5, 4)).astype(np.float32)
    x, y = _axes_to_grid(per_pixel[..., 2], per_pixel[..., 3], ORIGIN, SCALE)
    expected = _reference_to_grid(per_pixel[..., 2:4])
    np.testing.assert_array_equal(x, expected[..., 0])
    np.testing.assert_array_equal(y, expected[..., 1])


def test_lookup_is_one_remap_at_the_scaled_texture_coordinates() -> None:
    texture = RNG.uniform(0, 255, (32, 32, 3)).astype(np.float32)
    per_pixel = RNG.uniform(-4, 132, (11, 13, 4)).astype(np.float32)  # (u, v) on 128²
    expected = cv2.remap(
        texture,
        np.ascontiguousarray(per_pixel[..., :2] * np.float32(32 / 128)),
        None,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    np.testing.assert_array_equal(_lookup(texture, _uv_maps(per_pixel), 128), expected)
    # At the texture's own size, the coordinates as they are.
    same = cv2.remap(
        texture,
        np.ascontiguousarray(per_pixel[..., :2]),
        None,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    np.testing.assert_array_equal(_lookup(texture, _uv_maps(per_pixel), 32), same)
