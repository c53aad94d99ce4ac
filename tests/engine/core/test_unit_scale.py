"""The lookup-table scalings are bit-identical to the NumPy arithmetic they replace, and so
are the model inputs built with them (detector letterbox, mesh crop, eye crops)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.unit_scale import to_signed, to_unit
from engine.face import detector, iris, roi


def old_unit(image: np.ndarray) -> np.ndarray:
    return image.astype(np.float32) * (1.0 / 255.0)


def old_signed(image: np.ndarray) -> np.ndarray:
    return image.astype(np.float32) * (2.0 / 255.0) - 1.0


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    path = SAMPLE_FACES_DIR / "grace_hopper.jpg"
    return read_image(path)


def test_every_level_and_shape_matches_the_arithmetic() -> None:
    levels = np.arange(256, dtype=np.uint8)
    noise = np.random.default_rng(1).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    for image in (levels.reshape(16, 16), noise, noise[::2, 1::3]):  # a strided view too
        for new, old in ((to_unit, old_unit), (to_signed, old_signed)):
            got = new(image)
            assert got.dtype == np.float32 and got.shape == image.shape
            assert got.tobytes() == np.ascontiguousarray(old(image)).tobytes()


def test_letterbox_is_bit_identical(photo: np.ndarray) -> None:
    for size in (128, 192):
        tensor, _ = detector.letterbox(photo, size)
        h, w = photo.shape[:2]
        scale = size / max(h, w)
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        small = cv2.resize(photo, (nw, nh), interpolation=cv2.INTER_AREA)
        px, py = (size - nw) // 2, (size - nh) // 2
        square = cv2.copyMakeBorder(small, py, size - nh - py, px, size - nw - px, 0, value=0)
        want = old_signed(cv2.cvtColor(square, cv2.COLOR_BGR2RGB))[None]
        assert tensor.tobytes() == want.tobytes()


def test_mesh_and_eye_crops_are_bit_identical(photo: np.ndarray) -> None:
    h, w = photo.shape[:2]
    box = roi.Roi(w / 2, h / 2, min(w, h) * 0.6, 0.3)
    crop = cv2.warpAffine(photo, box.frame_to_crop(192), (192, 192), flags=cv2.INTER_LINEAR)
    want = old_unit(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))
    assert roi.crop_rgb(photo, box, 192).tobytes() == want.tobytes()

    affine = np.array([[0.8, -0.1, w * 0.3], [0.1, 0.8, h * 0.4]])
    tensor = iris.EyeRefiner.bundled("cpu").crops(photo, (affine, affine))
    sample = affine.copy()
    sample[:, 2] += affine[:, :2] @ (0.5, 0.5)
    eye = cv2.warpAffine(
        photo,
        sample,
        (64, 64),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    old = np.empty((64, 64, 3), np.float32)
    old[:] = cv2.cvtColor(eye, cv2.COLOR_BGR2RGB)
    old *= 1.0 / 255.0
    assert tensor[0].tobytes() == old.tobytes() and tensor[1].tobytes() == old.tobytes()
