"""Identity latent math: projection through emap, photo averaging, the alpha blend."""

from __future__ import annotations

import numpy as np
import pytest

from engine.neural.latent import average_identity, blend, normalise, project


def _unit(seed: int, size: int = 512) -> np.ndarray:
    return normalise(np.random.default_rng(seed).normal(size=size))


def test_projection_is_normalised_embedding_times_emap_renormalised() -> None:
    rng = np.random.default_rng(0)
    emap = rng.normal(size=(512, 512)).astype(np.float32)
    embedding = rng.normal(size=512).astype(np.float32) * 7.0  # raw ArcFace output scale
    latent = project(embedding, emap)
    manual = (embedding / np.linalg.norm(embedding)) @ emap
    np.testing.assert_allclose(latent, manual / np.linalg.norm(manual), atol=1e-6)
    assert latent.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(latent), 1.0, atol=1e-6)
    # Scale of the embedding does not matter; direction does.
    np.testing.assert_allclose(project(embedding * 0.01, emap), latent, atol=1e-6)


def test_photos_average_to_one_identity() -> None:
    a, b, c = _unit(1), _unit(2), _unit(3)
    mean = average_identity([a * 3.0, b, c * 0.5])  # each photo counts once, whatever its norm
    expected = (a + b + c) / np.linalg.norm(a + b + c)
    np.testing.assert_allclose(mean, expected, atol=1e-6)
    np.testing.assert_allclose(average_identity([c, a, b]), mean, atol=1e-6)
    np.testing.assert_allclose(average_identity([a * 2]), a, atol=1e-6)
    with pytest.raises(ValueError, match="no embeddings"):
        average_identity([])


def test_alpha_blend_moves_from_target_to_source() -> None:
    target, source = _unit(4), _unit(5)
    np.testing.assert_array_equal(blend(target, source, 0.0), target)
    np.testing.assert_array_equal(blend(target, source, 1.0), source)
    half = blend(target, source, 0.5)
    np.testing.assert_allclose(np.linalg.norm(half), 1.0, atol=1e-6)
    np.testing.assert_allclose(half @ target, half @ source, atol=1e-6)
    similarity = [float(blend(target, source, a) @ source) for a in np.linspace(0, 1, 11)]
    assert similarity == sorted(similarity)
    with pytest.raises(ValueError, match="alpha"):
        blend(target, source, 1.5)


def test_opposite_latents_do_not_produce_nan() -> None:
    source = _unit(6)
    np.testing.assert_array_equal(blend(-source, source, 0.5), source)
    np.testing.assert_array_equal(blend(-source, source, 0.4), -source)


def test_zero_vector_is_refused() -> None:
    with pytest.raises(ValueError, match="zero"):
        normalise(np.zeros(512))
