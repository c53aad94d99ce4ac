"""The compositor's last step: the face's change, resampled once, added into the frame."""

from __future__ import annotations

import cv2
import numpy as np

from engine.render.composite import add_delta


def test_a_change_under_half_a_grey_level_leaves_the_pixel_and_zero_leaves_the_frame() -> None:
    frame = np.full((20, 30, 3), 100, np.uint8)
    before = frame.copy()
    delta = np.zeros((10, 12, 3), np.float32)
    delta[2:5, 3:6] = 0.4
    delta[6:9, 6:9] = -0.4
    add_delta(frame[5:15, 10:22], delta)  # a view into the frame, written in place
    np.testing.assert_array_equal(frame, before)


def test_the_change_is_rounded_saturated_and_only_inside_the_region() -> None:
    frame = np.full((20, 30, 3), 250, np.uint8)
    frame[:, :, 0] = 3
    delta = np.zeros((10, 12, 3), np.float32)
    delta[..., 0] = -10.0  # 3 − 10 → 0, not wrapped round
    delta[..., 1] = 20.0  # 250 + 20 → 255
    delta[..., 2] = 2.6  # → 253
    add_delta(frame[5:15, 10:22], delta)
    region = frame[5:15, 10:22]
    assert (region[..., 0] == 0).all() and (region[..., 1] == 255).all()
    assert (region[..., 2] == 253).all()
    outside = np.ones(frame.shape[:2], bool)
    outside[5:15, 10:22] = False
    assert (frame[outside] == [3, 250, 250]).all()


def test_a_coarser_delta_is_resampled_linearly_onto_the_region() -> None:
    rng = np.random.default_rng(1)
    delta = rng.uniform(-30.0, 30.0, (8, 10, 3)).astype(np.float32)
    frame = np.full((40, 50, 3), 128, np.uint8)
    add_delta(frame[4:36, 5:45], delta)
    expected = cv2.resize(delta, (40, 32), interpolation=cv2.INTER_LINEAR) + 128.0
    got = frame[4:36, 5:45].astype(np.float32)
    assert np.abs(got - expected).max() <= 0.5 + 1e-4
