"""The compositor's bands: the frame's own skin texture near the face's edge."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.core.face_records import FacePatch
from engine.core.settings import CompositorSettings
from engine.render import composite

IOD = 80.0  # patch pixels between the eyes: the working resolution
SIZE = 240


def _textured_frame_and_flat_face() -> tuple[np.ndarray, FacePatch]:
    """A frame of skin with a texture between the fine and the mid split (stubble, JPEG
    blocks: a period of 0.15 IOD), and a plain face over it."""
    y, x = np.mgrid[:SIZE, :SIZE].astype(np.float32)
    texture = 20.0 * np.sin(2 * np.pi * x / 12.0) * np.sin(2 * np.pi * y / 12.0)
    base = np.repeat((120.0 + texture)[..., None], 3, axis=2).astype(np.float32)
    mask = np.zeros((SIZE, SIZE), np.float32)
    cv2.circle(mask, (SIZE // 2, SIZE // 2), 100, 1.0, -1)
    face = np.full((SIZE, SIZE, 3), 120.0, np.float32)
    patch = FacePatch(x0=0, y0=0, image=face, mask=mask, scale_px=IOD, features=np.zeros_like(mask))
    return base, patch


def _texture_left(depth: tuple[float, float], three_bands: bool, mp: pytest.MonkeyPatch) -> float:
    """RMS of the frame's texture left in the blend, at a depth (in IOD) inside the face."""
    base, patch = _textured_frame_and_flat_face()
    with mp.context() as m:
        if three_bands:  # no texture band: mid reaches down to the fine split
            m.setattr(composite, "SPLIT_MID", composite.SPLIT_FINE)
        out = base + composite.blend_delta(base, patch, CompositorSettings())
    inside = composite.inside_distance(patch) / IOD
    ring = (inside >= depth[0]) & (inside < depth[1])
    return float(np.sqrt(np.mean((out[ring, 0] - 120.0) ** 2)))


def test_near_the_edge_the_frame_keeps_more_of_its_skin_texture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Measured 0.03–0.1 IOD inside: 9.3 with the texture band, 5.5 without (the frame's
    # own: 10.0).
    with_band = _texture_left((0.03, 0.1), three_bands=False, mp=monkeypatch)
    without = _texture_left((0.03, 0.1), three_bands=True, mp=monkeypatch)
    assert with_band > 1.4 * without


def test_deep_inside_the_face_the_source_replaces_the_texture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Measured 0.4–1 IOD inside: 1.7 of the frame's 10.0 with the texture band or without
    # (the part finer than SPLIT_FINE, which plain skin always keeps).
    deep = _texture_left((0.4, 1.0), three_bands=False, mp=monkeypatch)
    assert deep < 2.5
    assert deep == pytest.approx(_texture_left((0.4, 1.0), three_bands=True, mp=monkeypatch))
