"""The target's light over the new face's form (engine/swap/form_light.py): fitted to
what the target's skin shows beyond its smooth field, played over the posed mesh.

Real meshes of real photos (the bundled portraits), real unwrapping, the real renderer;
the light is a made-up one played over the target's own mesh, so that what it did is
known."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from engine.core.face_records import Face
from engine.core.imageio import read_image
from engine.core.settings import SwapSettings
from engine.core.types import F32, Frame
from engine.face.fit import vertex_normals
from engine.render.raster import rasterize_attributes
from engine.render.uvmap import uv_map
from engine.swap import form_light, shading, target_shadow
from engine.swap.library import SourceLibrary
from engine.swap.renderer import FaceRenderer
from tests.engine.swap.support import EILEEN, GRACE, analyzer, fitted_face, fitter

# A hard light from the image's left and a little above: in log lightness per unit of
# each normal component (the normals point towards the camera, −z, on a front face).
SIDE_LIGHT = np.array([-0.5, -0.15, 0.0], np.float32)
LUMA = shading.LUMA


@pytest.fixture(scope="module")
def grace() -> tuple[Frame, Face]:
    frame = read_image(GRACE)
    return frame, fitted_face(frame)


def test_a_form_shading_is_recovered_past_a_beard(grace: tuple[Frame, Face]) -> None:
    """Log colour made of a known form shading (a warmer one in red), photo noise and a
    dark patch (a beard over half the lower face): the fit gives the shading back, per
    channel."""
    _, face = grace
    assert face.landmarks is not None
    size = shading.FIELD_SIZE
    vertices = form_light.basis(vertex_normals(face.landmarks, fitter().triangles))
    terms = uv_map(size).interpolate(vertices)
    truth = np.zeros((9, 3), np.float32)
    truth[1:4] = SIDE_LIGHT[:, None] * np.array([0.8, 0.9, 1.0], np.float32)
    truth[8] = 0.08  # a little light from straight ahead
    rng = np.random.default_rng(0)
    residual = terms @ truth[1:] + rng.normal(0, 0.03, (size, size, 3))
    residual[int(size * 0.7) :, : size // 2] -= 0.8
    skin = shading.feature_masks(size).skin
    coeffs = form_light.fit(residual.astype(np.float32), skin, terms)
    want = form_light.shade(truth, vertices, skin)
    got = form_light.shade(coeffs, vertices, skin)
    used = skin > 0.5
    assert np.abs(np.log(got[used]) - np.log(want[used])).mean() < 0.02


def _side_lit(frame: Frame, face: Face) -> Frame:
    """`frame` with `SIDE_LIGHT` played over the face's form: each face pixel's colour
    times exp(light · its normal), the normals interpolated over the mesh, scaled so
    that it only darkens (nothing clips)."""
    assert face.landmarks is not None
    normals = vertex_normals(face.landmarks, fitter().triangles)
    per_pixel, covered = rasterize_attributes(
        face.landmarks[:, :2], face.landmarks[:, 2], fitter().triangles, normals, frame.shape[:2]
    )
    light = per_pixel @ SIDE_LIGHT
    gain = np.where(covered, np.exp(light - light[covered].max()), 1.0)
    return np.clip(frame.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)


def _beyond_quadratic(values: F32, where: np.ndarray) -> F32:
    """`values` at `where`, less the least-squares quadratic in (x, y) through them."""
    y, x = np.nonzero(where)
    x, y = x / where.shape[1], y / where.shape[0]
    design = np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])
    coeffs = np.linalg.lstsq(design, values[where], rcond=None)[0]
    return (values[where] - design @ coeffs).astype(np.float32)


def _shading_match(
    library: SourceLibrary, lit: Frame, face: Face, flat: Frame, monkeypatch: pytest.MonkeyPatch
) -> tuple[float, float]:
    """How closely, over the render's plain skin, the render's log lightness change from
    the flat target to the side-lit one follows the target's own change beyond what a
    quadratic over the image holds (the smooth field's share): their correlation, with
    the form light and with the smooth field alone."""
    identity = library.load_identity([EILEEN])
    renderer = FaceRenderer(fitter())
    # The form light alone: the target's deep shadows (engine/swap/target_shadow.py)
    # would otherwise darken both renders where the side light is deepest.
    monkeypatch.setattr(target_shadow, "shadow_gain", lambda *_: None)
    settings = SwapSettings(shape_alpha=0.0, likeness=1.0)

    def change() -> float:
        before = renderer.render(flat, copy.copy(face), identity, settings, blur_sigma=0.0)
        after = renderer.render(lit, copy.copy(face), identity, settings, blur_sigma=0.0)
        assert before is not None and after is not None
        plain = (before.mask > 0.9) & (before.features is not None) & (before.features < 0.05)
        ours = np.log(after.image @ LUMA + 1.0) - np.log(before.image @ LUMA + 1.0)
        theirs = np.log(after.input_sample.astype(np.float32) @ LUMA + 1.0) - np.log(
            before.input_sample.astype(np.float32) @ LUMA + 1.0
        )
        return float(
            np.corrcoef(_beyond_quadratic(ours, plain), _beyond_quadratic(theirs, plain))[0, 1]
        )

    with_form = change()
    monkeypatch.setattr(
        form_light,
        "shade",
        lambda coeffs, terms, skin: np.ones((*skin.shape, coeffs.shape[1]), np.float32),
    )
    return with_form, change()


def test_the_targets_side_light_plays_over_the_new_face(
    grace: tuple[Frame, Face],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Grace Hopper lit hard from one side over her face's form (the nose's flanks, the
    cheeks turning away), with Eileen Collins's face put on her: where the light moved
    her lightness, the new face's moves alike, far more closely than with the smooth
    field alone (a quadratic over the face, which has no nose)."""
    frame, face = grace
    lit = _side_lit(frame, face)
    library = SourceLibrary(analyzer(), cache_dir=tmp_path_factory.mktemp("cache"))
    with_form, field_only = _shading_match(library, lit, face, frame, monkeypatch)
    # Measured: 0.06 with the form light, -0.23 with the smooth field alone (a quadratic
    # in texture space is not one in the image: it even runs against the light there).
    # Stop 43, with the skin's hold and the target's texture (engine/swap/skin_texture.py:
    # the side-lit target's skin spreads more, so more of its own texture shows): 0.14
    # and -0.09. Stop 45, with the target's highlights, its deep shadows left out (with
    # them both renders follow the light where it is deepest: 0.33 and 0.26): 0.25 and
    # -0.03.
    assert with_form > field_only + 0.2, (with_form, field_only)
