"""Identity latent math shared by the inswapper-style swapper.

latent = normalise(normalise(embedding) @ emap): the ArcFace embedding projected by the
model's emap matrix. Several photos of one person average in embedding space, then
project. `blend` mixes target and source latents on the unit sphere (swap.latent_blend).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32

_EPS = 1e-8


def normalise(vector: NDArray[np.floating]) -> F32:
    flat = np.asarray(vector, np.float64)
    norm = float(np.linalg.norm(flat))
    if not np.isfinite(norm) or norm < _EPS:
        raise ValueError("cannot normalise a zero or non-finite vector")
    return (flat / norm).astype(np.float32)


def average_identity(embeddings: Sequence[NDArray[np.floating]]) -> F32:
    """One identity from several photos: mean of the unit embeddings, renormalised."""
    if not embeddings:
        raise ValueError("no embeddings to average")
    return normalise(np.mean([normalise(e) for e in embeddings], axis=0))


def project(embedding: NDArray[np.floating], emap: F32) -> F32:
    """The swapper's identity latent for an ArcFace embedding."""
    return normalise(normalise(embedding).astype(np.float64) @ emap.astype(np.float64))


def blend(target: F32, source: F32, alpha: float) -> F32:
    """alpha = 0: the target's own identity; 1: the source's. Linear mix, renormalised;
    when the two are nearly opposite the mix has no direction, so the nearer end wins."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    if alpha >= 1.0:
        return source
    if alpha <= 0.0:
        return target
    mixed = (1.0 - alpha) * target.astype(np.float64) + alpha * source.astype(np.float64)
    if float(np.linalg.norm(mixed)) < 1e-6:
        return source if alpha >= 0.5 else target
    return normalise(mixed)
