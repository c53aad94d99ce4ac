"""A photo's light over the face's form: shading that follows the mesh's normals.

The smooth skin field (engine/swap/shading.py) is a quadratic over the texture square:
it carries the target's broad light and skin colour, but not what that light does over
a nose's flanks, under its tip, in the eye sockets or where a cheek turns away, so the
new face came out flat, a mask pasted on a lit head. Here a second-order
spherical-harmonics shading of the mesh's own normals is fitted, per channel in log
space, to what the target's skin shows beyond its smooth field, and evaluated on the
posed mesh's normals (the new face's form, in the target's pose) to multiply into the
render's light. The source photo's own form light is fitted alike and divided out of
its texture with its smooth field when the identity is built (engine/swap/identity.py):
left in, a side-lit photo's shaded nose flank and cheek rode along, and a photo
swapped onto itself came out with its form light twice.
"""

from __future__ import annotations

import numpy as np

from engine.core.types import F32
from engine.render.uvmap import uv_map
from engine.swap.shading import LUMA

LIMIT = 0.7  # the form shading's log gain stays within ±LIMIT (a poor fit cannot blow up)
RIDGE = 1e-3  # of the normal equations' mean diagonal: a flat-lit face's fit stays near 0
ITERATIONS = 6
TAU = 0.1  # log residual at which a texel counts half (Cauchy): a beard or a spot
STRIDE = 2  # the fit takes every STRIDE-th texel each way: the light's play is smooth


def basis(normals: F32) -> F32:
    """The eight non-constant real SH terms of order ≤ 2 at each normal (…×8), unscaled."""
    x, y, z = normals[..., 0], normals[..., 1], normals[..., 2]
    terms = [x, y, z, x * y, x * z, y * z, x * x - y * y, 3.0 * z * z - 1.0]
    return np.stack(terms, axis=-1).astype(np.float32)


def fit(residual: F32, weight: F32, terms: F32) -> F32:
    """Coefficients (9×C: a constant, then `basis`'s eight, per channel) of the log
    `residual` (S×S×C: a photo's skin over its smooth field) as form shading, given
    the SH terms over the texture square (`terms`, S×S×8), fitted on the texels
    weighted by `weight` (S×S), robustly: a texel's weight falls (Cauchy) with its
    lightness's distance from the fit. (Not the smooth field's compiled robust fit:
    its channel-mean residual and its switch to Welsch weights drop more of a face's
    own shading; measured on DEV+WIDE, ID@1 45.7 % against 51.6 %, skin artifact
    0.0055 against 0.0046, and a squint read more open: tests/engine/swap/test_engine.)"""
    every = (slice(None, None, STRIDE), slice(None, None, STRIDE))
    used = weight[every] > 0.0
    design = np.column_stack([np.ones(int(used.sum())), terms[every][used].astype(np.float64)])
    target = residual[every][used].astype(np.float64)
    prior = weight[every][used].astype(np.float64)
    ridge = np.zeros((design.shape[1],) * 2)
    coeffs = np.zeros((design.shape[1], target.shape[1]))
    robust = np.ones_like(prior)
    for _ in range(ITERATIONS):
        weighted = design * (prior * robust)[:, None]
        normal = design.T @ weighted
        ridge[1:, 1:] = np.eye(design.shape[1] - 1) * RIDGE * np.trace(normal) / len(normal)
        coeffs = np.linalg.solve(normal + ridge, weighted.T @ target)
        error = (target - design @ coeffs) @ LUMA.astype(np.float64)
        robust = 1.0 / (1.0 + (error / TAU) ** 2)
    return coeffs.astype(np.float32)


def shade(coeffs: F32, terms: F32, skin: F32) -> F32:
    """The per-channel gain (S×S×C) of the form shading `coeffs` on a mesh whose
    vertices have the SH terms `terms` (N×8; spread over the texture square like its
    colours), its mean over `skin` (S×S weights) taken out: the smooth field holds the
    level."""
    log = uv_map(skin.shape[0]).interpolate(terms @ coeffs[1:])
    total = max(float(skin.sum()), 1e-6)
    log -= (log * skin[..., None]).sum(axis=(0, 1)) / total
    return np.exp(np.clip(log, -LIMIT, LIMIT)).astype(np.float32)


def form_gain(texture: F32, weight: F32, field: F32, fitted: F32, shown: F32, skin: F32) -> F32:
    """The per-channel gain (S×S×3) of the form shading fitted to `texture`'s skin
    (S×S×3, weights `weight`) over its smooth field `field`, on the mesh whose vertices
    have the SH terms `fitted` (`basis` of its unit normals: the photo's own), played over the mesh
    with `shown` (the same, to divide a source's out; the posed mesh's, to light a
    render); `skin`: the plain skin the shading's level is taken over."""
    return shade(fit_over(texture, weight, field, fitted), shown, skin)


def fit_over(texture: F32, weight: F32, field: F32, fitted: F32) -> F32:
    """`fit`'s coefficients of `texture`'s log over its smooth `field`, on the mesh whose
    vertices have the SH terms `fitted`: `form_gain` without the shading, for a caller
    that plays one fit over two meshes."""
    residual = np.log(np.maximum(texture, 0.0) + 1.0) - np.log(np.maximum(field, 0.0) + 1.0)
    return fit(residual, weight, uv_map(texture.shape[0]).interpolate(fitted))
