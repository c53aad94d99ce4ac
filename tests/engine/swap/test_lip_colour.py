"""The lips take the target's own colour at the render's lightness; the source's lipstick
does not ride along."""

from __future__ import annotations

import numpy as np
import pytest

from engine.swap import lip_colour
from engine.swap.library import SourceLibrary
from tests.engine.swap.support import analyzer, dev, erode, region_mask
from tests.engine.swap.test_composite import swapped

SKIN = (120.0, 150.0, 200.0)  # BGR
LIPSTICK = (60.0, 40.0, 200.0)
OWN_LIPS = (110.0, 120.0, 150.0)


def _grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(render, own, lips) on a 40×40 grid: skin everywhere, lips in the middle band;
    the render's lips are lipstick red with a lightness ramp (their detail)."""
    render = np.empty((40, 40, 3), np.float32)
    render[:] = SKIN
    own = render.copy()
    lips = np.zeros((40, 40), np.float32)
    lips[15:25, 5:35] = 1.0
    lips[14, 5:35] = lips[25, 5:35] = 0.5  # a soft edge
    render[14:26, 5:35] = LIPSTICK
    render[14:26, 5:35] *= np.linspace(0.7, 1.1, 30, dtype=np.float32)[None, :, None]
    own[14:26, 5:35] = OWN_LIPS
    return render, own, lips


def _chroma(bgr: np.ndarray) -> np.ndarray:
    return bgr / bgr.sum(axis=-1, keepdims=True)


def test_the_lips_take_the_targets_hue_at_the_renders_lightness() -> None:
    render, own, lips = _grid()
    out = lip_colour.own_lip_colour(render, own, lips, share=1.0)
    inside = lips == 1.0
    np.testing.assert_allclose(_chroma(out[inside]), _chroma(own[inside]), atol=1e-5)
    luma = lip_colour.LUMA
    np.testing.assert_allclose(out[inside] @ luma, render[inside] @ luma, rtol=1e-5)
    # The soft edge goes half-way; outside the mask nothing changes.
    edge = lips == 0.5
    full = lip_colour.own_lip_colour(render, own, (lips > 0.0).astype(np.float32), share=1.0)
    np.testing.assert_allclose(out[edge], 0.5 * (render[edge] + full[edge]), rtol=1e-5)
    np.testing.assert_array_equal(out[lips == 0.0], render[lips == 0.0])


def test_a_dark_red_lip_line_under_a_lighter_render_does_not_glow() -> None:
    """The target's chroma is added at the render's lightness, not scaled up with it: a
    dark red line between the target's lips, under a render three times lighter, scaled
    would ask for red 300 (past what a pixel shows: a glowing red line)."""
    render = np.full((1, 1, 3), 150.0, np.float32)
    own = np.array([[[20.0, 20.0, 100.0]]], np.float32)
    out = lip_colour.own_lip_colour(render, own, np.ones((1, 1), np.float32), 1.0)
    luma = lip_colour.LUMA
    np.testing.assert_allclose(out[0, 0] @ luma, 150.0, rtol=1e-5)
    np.testing.assert_allclose(out[0, 0] - 150.0, own[0, 0] - own[0, 0] @ luma, atol=1e-3)
    assert out.max() < 255.0


def test_no_share_or_no_lips_leaves_the_render_as_it_is() -> None:
    render, own, lips = _grid()
    np.testing.assert_array_equal(lip_colour.own_lip_colour(render, own, lips, 0.0), render)
    np.testing.assert_array_equal(
        lip_colour.own_lip_colour(render, own, np.zeros_like(lips)), render
    )


def test_the_lips_mask_is_the_red_of_the_lips_not_the_mouths_opening() -> None:
    mask = lip_colour.lips_mask()
    assert mask.shape == (lip_colour.MASK_SIZE, lip_colour.MASK_SIZE)
    covered = float((mask > 0.5).mean())
    assert 0.005 < covered < 0.05, covered  # the lips are a small part of the face
    assert mask.max() > 0.99


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> SourceLibrary:
    return SourceLibrary(analyzer(), cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.mark.testdata
def test_a_sources_red_lipstick_does_not_ride_along(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anon_inspireface_1561_1 wears red lipstick; robert_downey_jr_1's lips are a
    muted pink-brown. With the step, the output's lips are about as red as the target's
    own (red's share of the colour 0.439 against the target's 0.435 when written);
    without it, nearer the lipstick's (0.464)."""

    def redness() -> tuple[float, float]:
        frame, packet, face = swapped(
            library, dev("anon_inspireface_1561_1.jpg"), dev("robert_downey_jr_1.jpg")
        )
        assert packet.output is not None
        lips = erode(
            region_mask(face, "lips_outer", frame.shape)
            & ~region_mask(face, "lips_inner", frame.shape),
            2,
        )
        assert lips.sum() > 200
        ours = _chroma(packet.output[lips].astype(np.float64).mean(axis=0))[2]
        theirs = _chroma(frame[lips].astype(np.float64).mean(axis=0))[2]
        return float(ours), float(theirs)

    with_step, target = redness()
    monkeypatch.setattr(lip_colour, "own_lip_colour", lambda image, *_: image)
    without, _ = redness()
    assert abs(with_step - target) < 0.01, (with_step, target)
    assert without - target > 0.02, (without, target)
