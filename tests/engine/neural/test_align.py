"""Alignment for the neural models: templates, the similarity fit, crops and paste-back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.neural.align import (
    ARCFACE_112,
    FFHQ_512,
    MESH_LEFT_EYE,
    MESH_MOUTH,
    MESH_NOSE,
    MESH_RIGHT_EYE,
    arcface_template,
    back_region,
    ffhq_template,
    five_points_from_mesh,
    similarity_transform,
    warp_back,
    warp_crop,
)
from tests.engine.neural_fakes import FACES_DIR, reference_landmarks


def _apply(affine: np.ndarray, points: np.ndarray) -> np.ndarray:
    return np.c_[points, np.ones(len(points))] @ affine.T


def test_templates_follow_insightface_conventions() -> None:
    np.testing.assert_allclose(arcface_template(112), ARCFACE_112)
    # 128: the 112 face centred in a 128 canvas (8 px right), not scaled by 128/112.
    np.testing.assert_allclose(arcface_template(128), ARCFACE_112 + np.array([8.0, 0.0]), atol=1e-5)
    np.testing.assert_allclose(arcface_template(224), ARCFACE_112 * 2, atol=1e-4)
    np.testing.assert_allclose(
        arcface_template(256), ARCFACE_112 * 2 + np.array([16.0, 0.0]), atol=1e-4
    )
    np.testing.assert_allclose(ffhq_template(256), FFHQ_512 / 2, atol=1e-5)
    with pytest.raises(ValueError, match="multiples of 112 or 128"):
        arcface_template(100)


def test_similarity_fit_recovers_a_known_transform() -> None:
    angle, scale, shift = np.deg2rad(17.0), 2.7, np.array([311.0, 145.0])
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    template = arcface_template(128).astype(np.float64)
    frame_points = (template @ rotation.T) * scale + shift  # the face as seen in a frame
    affine = similarity_transform(frame_points.astype(np.float32), template.astype(np.float32))
    np.testing.assert_allclose(_apply(affine, frame_points), template, atol=1e-3)
    np.testing.assert_allclose(abs(np.linalg.det(affine[:, :2])), 1 / scale**2, rtol=1e-6)
    with pytest.raises(ValueError, match="coincide"):
        similarity_transform(np.zeros((5, 2), np.float32), template.astype(np.float32))


def test_crop_puts_known_points_on_the_template() -> None:
    """Five dots drawn in a frame land on the template's positions in the aligned crop."""
    template = arcface_template(128)
    angle = np.deg2rad(-12.0)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    points = (template - 64) @ rotation.T * 2.2 + [260, 190]
    frame = np.zeros((400, 520, 3), np.uint8)
    for x, y in points:
        cv2.circle(
            frame,
            (round(x * 16), round(y * 16)),
            5 * 16,
            (255, 255, 255),
            -1,
            lineType=cv2.LINE_AA,
            shift=4,
        )
    crop = warp_crop(frame, similarity_transform(points.astype(np.float32), template), 128)
    gray = crop[:, :, 0].astype(np.float32)
    count, labels = cv2.connectedComponents((gray > 60).astype(np.uint8))
    assert count == 6  # background + five dots
    ys, xs = np.mgrid[0:128, 0:128]
    centroids = np.array(
        [
            [
                (xs * gray)[labels == k].sum() / gray[labels == k].sum(),
                (ys * gray)[labels == k].sum() / gray[labels == k].sum(),
            ]
            for k in range(1, 6)
        ]
    )
    for point in template:
        assert np.min(np.linalg.norm(centroids - point, axis=1)) < 0.6


def test_five_points_come_from_the_named_mesh_indices() -> None:
    rng = np.random.default_rng(0)
    mesh = rng.uniform(0, 500, (468, 3)).astype(np.float32)
    points = five_points_from_mesh(mesh)
    np.testing.assert_allclose(points[0], mesh[list(MESH_RIGHT_EYE), :2].mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(points[1], mesh[list(MESH_LEFT_EYE), :2].mean(axis=0), rtol=1e-6)
    np.testing.assert_array_equal(points[2], mesh[MESH_NOSE, :2])
    np.testing.assert_array_equal(points[3:], mesh[list(MESH_MOUTH), :2])
    with pytest.raises(ValueError, match="468"):
        five_points_from_mesh(mesh[:100])


@pytest.mark.testdata
@pytest.mark.parametrize("name", ["obama_1.jpg", "biden_1.jpg", "lin_manuel_miranda_1.png"])
def test_real_mesh_points_fit_the_arcface_template(name: str) -> None:
    """On real faces, the mesh's five points fit the template in the right order: a swapped
    eye or mouth pair would leave residuals of tens of pixels, not a few."""
    path = FACES_DIR / name
    if not path.is_file():
        pytest.skip("../shared/testdata is absent")
    image = cv2.imread(str(path))
    (landmarks,) = reference_landmarks(image)
    points = five_points_from_mesh(landmarks)
    assert points[0, 0] < points[1, 0] and points[3, 0] < points[4, 0]  # image-left first
    template = arcface_template(112)
    residual = np.linalg.norm(
        _apply(similarity_transform(points, template), points) - template, axis=1
    )
    assert residual.max() < 10.0 and np.sqrt((residual**2).mean()) < 6.0, residual


def test_paste_back_region_and_values() -> None:
    rng = np.random.default_rng(3)
    template = arcface_template(128)
    points = (template * 1.5 + [40, 30]).astype(np.float32)
    affine = similarity_transform(points, template)
    region = back_region(affine, 128, (300, 400, 3))
    assert region is not None
    x0, y0, x1, y1 = region
    # The crop covers [40, 40 + 192] × [30, 30 + 192] in the frame (scale 1.5), give or
    # take the rounding outward.
    assert x0 in (39, 40) and y0 in (29, 30) and 193 <= x1 - x0 <= 195 and 193 <= y1 - y0 <= 195
    crop = rng.uniform(0, 255, (128, 128, 3)).astype(np.float32)
    back = warp_back(crop, affine, region)
    # Frame pixel (x, y) shows the crop at affine·(x, y): check at whole crop pixels.
    for cx, cy in [(10, 10), (64, 70), (120, 100)]:
        fx, fy = (np.array([cx, cy]) - affine[:, 2]) @ np.linalg.inv(affine[:, :2]).T
        np.testing.assert_allclose(back[round(fy) - y0, round(fx) - x0], crop[cy, cx], atol=1e-2)
    # Clipped to the frame; None when entirely outside.
    assert back_region(affine, 128, (100, 100, 3)) == (x0, y0, 100, 100)
    off = similarity_transform((template + 1000).astype(np.float32), template)
    assert back_region(off, 128, (100, 100, 3)) is None
