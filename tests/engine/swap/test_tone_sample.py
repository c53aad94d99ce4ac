"""The tone match's compiled sample gather is the NumPy form, value for value."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.median import row_medians
from engine.swap.tone_sample import strided_samples
from tests.engine.swap.support import GRACE, dev


@pytest.mark.parametrize("stride", [1, 3, 4])
@pytest.mark.parametrize("photo", [GRACE, dev("obama_2.jpg")])
def test_strided_samples_are_the_flat_index_gather(photo: object, stride: int) -> None:
    frame = read_image(photo)  # type: ignore[arg-type]
    image = frame.astype(np.float32) * np.float32(1.1)
    target = cv2.GaussianBlur(frame, (0, 0), 3.0).astype(np.float32)
    # A ragged mask, as plain skin is: mid-grey pixels only.
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    plain = (grey > 90) & (grey < 170)
    where = np.flatnonzero(plain)[::stride]
    ours, theirs = strided_samples(image, target, plain, stride)
    np.testing.assert_array_equal(ours, image.reshape(-1, 3)[where].T)
    np.testing.assert_array_equal(theirs, target.reshape(-1, 3)[where].T)
    np.testing.assert_array_equal(row_medians(ours), np.median(image.reshape(-1, 3)[where], axis=0))


def test_no_plain_pixels_gives_empty_samples() -> None:
    image = np.ones((4, 5, 3), np.float32)
    ours, theirs = strided_samples(image, image, np.zeros((4, 5), bool), 4)
    assert ours.shape == theirs.shape == (3, 0)
