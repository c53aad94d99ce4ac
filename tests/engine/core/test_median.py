"""channel_median is np.median(…, axis=0), bit for bit, on real pixels."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.median import channel_median, row_medians
from tests.engine.face_data import TESTDATA_DIR


@pytest.mark.parametrize("count", [1, 2, 3, 50, 51, 4186, 4187])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_channel_median_matches_numpy(count: int, dtype: type) -> None:
    frame = read_image(TESTDATA_DIR / "faces" / "obama_2.jpg").astype(dtype)
    rng = np.random.default_rng(count)
    pixels = frame.reshape(-1, 3)[rng.choice(frame.shape[0] * frame.shape[1], count)]
    pixels = pixels * dtype(1.37)  # off the integer grid, so that halves round
    ours = channel_median(pixels)
    assert ours.dtype == np.median(pixels, axis=0).dtype
    np.testing.assert_array_equal(ours, np.median(pixels, axis=0))


def test_channel_median_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError):
        channel_median(np.zeros((0, 3), np.float32))


def test_row_medians_are_numpys_along_rows() -> None:
    rows = np.random.default_rng(3).uniform(0, 255, (3, 1001)).astype(np.float32)
    np.testing.assert_array_equal(row_medians(rows), np.median(rows, axis=1))
    np.testing.assert_array_equal(row_medians(rows[:, :1000]), np.median(rows[:, :1000], axis=1))
