"""Second-order spherical harmonics: the 9-term lighting model of the fitter and renderer."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32


def sh_basis(normals: NDArray[np.floating]) -> F32:
    """(N, 9) real SH basis at unit normals (N, 3); band order 0, 1(y, z, x), 2."""
    n = np.asarray(normals, dtype=np.float32)
    x, y, z = n[:, 0], n[:, 1], n[:, 2]
    return np.stack(
        [
            np.full_like(x, 0.282095),
            0.488603 * y,
            0.488603 * z,
            0.488603 * x,
            1.092548 * x * y,
            1.092548 * y * z,
            0.315392 * (3.0 * z * z - 1.0),
            1.092548 * x * z,
            0.546274 * (x * x - y * y),
        ],
        axis=1,
    )


BAND2_RIDGE = 0.05
# Relighting uses ambient + directional terms only: a face shows too narrow a range of
# normals for its band-2 terms to transfer from one face to another (measured: they cost
# identity and add blotches), while band 1 carries the light's direction.
RELIGHT_BANDS = 2


def fit_sh(
    normals: NDArray[np.floating], colours: NDArray[np.floating], ridge: float | None = None
) -> F32:
    """Least-squares SH coefficients (9, C) so that basis(normals) @ coeffs ≈ colours.

    A light ridge on band 2 keeps a face's narrow range of normals from inventing strong
    second-order terms.
    """
    ridge = BAND2_RIDGE if ridge is None else ridge
    basis = sh_basis(normals).astype(np.float64)
    penalty = np.diag([0, 0, 0, 0, 1, 1, 1, 1, 1]).astype(np.float64) * ridge * len(basis)
    lhs = basis.T @ basis + penalty
    rhs = basis.T @ np.asarray(colours, dtype=np.float64)
    return np.linalg.solve(lhs, rhs).astype(np.float32)


def shading(normals: NDArray[np.floating], coeffs: F32, bands: int = 3) -> F32:
    """Shading (N, C) at normals, normalised so that the ambient (DC) term is 1 per channel:
    the albedo's colour cancels out, leaving only the light's spatial pattern.
    `bands` < 3 drops the higher orders (2: ambient + directional only)."""
    used = bands * bands
    dc = coeffs[0:1] * 0.282095
    return (sh_basis(normals)[:, :used] @ coeffs[:used]) / np.maximum(dc, 1e-6)


def light_direction(coeffs: F32) -> NDArray[np.float64]:
    """Dominant light direction (x, y, z) from the band-1 terms, averaged over channels."""
    band1 = coeffs[1:4].astype(np.float64).mean(axis=1)  # y, z, x
    d = np.array([band1[2], band1[0], band1[1]])
    return d / max(float(np.linalg.norm(d)), 1e-12)
