"""The compositor's compiled band blend against the plain NumPy form, on a real face."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.face_records import FacePatch
from engine.core.imageio import read_image
from engine.core.settings import CompositorSettings, EngineSettings, SwapSettings
from engine.render import composite
from engine.render.blend import with_weight
from engine.swap.library import SourceLibrary
from tests.engine.swap.support import GRACE, analyzer, dev, swap_frame


def _smoothstep(distance: np.ndarray, start: float, width: float) -> np.ndarray:
    t = np.clip((distance - start) / max(width, 1.0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _numpy_delta(base: np.ndarray, patch: FacePatch, settings: CompositorSettings) -> np.ndarray:
    """composite.blend_delta written out in NumPy, band by band."""
    iod = composite.patch_iod(patch)
    covered = patch.mask.astype(np.float64)
    image = patch.image.astype(np.float64)
    base = base.astype(np.float64)
    sizes = (composite.SPLIT_LOW * iod, composite.SPLIT_MID * iod, composite.SPLIT_FINE * iod)

    def box(plane: np.ndarray, size: float) -> np.ndarray:
        k = 2 * max(1, round(size / 2)) + 1
        return cv2.blur(plane, (k, k))

    own = [
        box(image * covered[..., None], s) / np.maximum(box(covered, s), 1e-4)[..., None]
        for s in sizes
    ]
    frame = [box(base, s) for s in sizes]
    bands = [
        own[0] - frame[0],
        (own[1] - own[0]) - (frame[1] - frame[0]),
        (own[2] - own[1]) - (frame[2] - frame[1]),
        (image - own[2]) - (base - frame[2]),
    ]
    inside = composite.inside_distance(patch)
    start = settings.mask_erode * iod
    ramps = [
        (start, settings.seam_width * iod),
        (start, composite.MID_RAMP * iod),
        (start + composite.TEXTURE_RAMP[0] * iod, composite.TEXTURE_RAMP[1] * iod),
        (start + composite.FINE_RAMP[0] * iod, composite.FINE_RAMP[1] * iod),
    ]
    cut = (1.0 - composite.keep_factor(patch)) * (covered > 0.5)
    features = np.ones_like(covered) if patch.features is None else patch.features
    alphas = [_smoothstep(inside, s, w) * cut for s, w in ramps]
    alphas[3] = alphas[3] * features
    return sum(band * alpha[..., None] for band, alpha in zip(bands, alphas, strict=True))


@pytest.mark.parametrize("target", [dev("obama_2.jpg"), dev("biden_1.jpg")])
def test_the_band_blend_is_the_numpy_form(tmp_path: Path, target: Path) -> None:
    library = SourceLibrary(analyzer(), cache_dir=tmp_path)
    settings = EngineSettings(swap=SwapSettings(source_key=library.load_identity([GRACE]).key))
    frame = read_image(target)
    patch = swap_frame(library, settings, frame).faces[0].patch
    assert patch is not None
    base = patch.input_in_patch(frame)
    ours = composite.blend_delta(base, patch, settings.compositor)
    expected = _numpy_delta(base, patch, settings.compositor)
    # Float32 in the kernel against float64 here: measured 9e-5 grey levels at most.
    assert np.abs(ours - expected).max() < 5e-4
    assert np.abs(expected).max() > 20.0  # the face does change the frame


def test_the_weighted_image_is_the_broadcast_product_bit_for_bit() -> None:
    rng = np.random.default_rng(4)
    image = rng.uniform(0, 255, (9, 7, 3)).astype(np.float32)
    weight = rng.uniform(0, 1, (9, 7)).astype(np.float32)
    both = with_weight(image, weight)
    np.testing.assert_array_equal(both[..., :3], image * weight[..., None])
    np.testing.assert_array_equal(both[..., 3], weight)
