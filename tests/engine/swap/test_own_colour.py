"""The lips and brows take the target's own colour at the render's lightness; the source's
lipstick and its brows' colour cast do not ride along."""

from __future__ import annotations

import time

import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.runtime.factory import build_stages
from engine.runtime.pipeline import Engine
from engine.swap import own_colour
from engine.swap.library import SourceLibrary
from engine.swap.shading import BROWS
from tests.engine.swap.support import dev, erode, polygon_mask, region_mask
from tests.engine.swap.test_composite import settings_for, swapped

SKIN = (120.0, 150.0, 200.0)  # BGR
LIPSTICK = (60.0, 40.0, 200.0)
OWN_LIPS = (110.0, 120.0, 150.0)
LUMA = own_colour.LUMA


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
    out = own_colour.own_colour(render, own, lips, share=1.0)
    inside = lips == 1.0
    np.testing.assert_allclose(_chroma(out[inside]), _chroma(own[inside]), atol=1e-5)
    np.testing.assert_allclose(out[inside] @ LUMA, render[inside] @ LUMA, rtol=1e-5)
    # The soft edge goes half-way; outside the mask nothing changes.
    edge = lips == 0.5
    full = own_colour.own_colour(render, own, (lips > 0.0).astype(np.float32), share=1.0)
    np.testing.assert_allclose(out[edge], 0.5 * (render[edge] + full[edge]), rtol=1e-5)
    np.testing.assert_array_equal(out[lips == 0.0], render[lips == 0.0])


def test_a_dark_red_lip_line_under_a_lighter_render_does_not_glow() -> None:
    """A dark red line between the target's lips, its colour taken as it is and lit to a
    render three times lighter, came out as a glowing red line (red 254 beside 174 on
    the rest of the lips). Held near the lips' typical colour, it is lit like them."""
    render, own, lips = _grid()
    render[14:26, 5:35] = 150.0
    own[19, 5:35] = (20.0, 20.0, 100.0)
    out = own_colour.own_colour(render, own, lips, share=1.0)
    np.testing.assert_allclose(out[19, 5:35] @ LUMA, 150.0, rtol=1e-4)
    np.testing.assert_allclose(out[19, 5:35], out[17, 5:35], atol=0.1 * 150)
    unheld = own_colour.own_colour(render, own, lips, share=1.0, spread=10.0)
    assert (unheld[19, 5:35, 2] - unheld[17, 5:35, 2] > 60.0).all()  # the glowing line


def test_an_off_hue_pixel_at_the_edge_is_held_near_the_features_colour() -> None:
    """The shadow under a target's lower lip can be grey-blue: over a dark render it read
    as a bruise. A pixel's colour stays within SPREAD of the lips' median colour."""
    render, own, lips = _grid()
    own[24, 5:35] = (130.0, 110.0, 100.0)  # blue-grey along the lower edge
    out = own_colour.own_colour(render, own, lips, share=1.0)
    colour = out[24, 5:35] / (out[24, 5:35] @ LUMA)[:, None]
    typical = np.array(OWN_LIPS) / (np.array(OWN_LIPS) @ LUMA)
    assert np.abs(colour - typical).max() < 1.5 * own_colour.SPREAD
    assert (out[24, 5:35, 0] < out[24, 5:35, 2]).all()  # still redder than blue
    unheld = own_colour.own_colour(render, own, lips, share=1.0, spread=10.0)
    assert (unheld[24, 5:35, 0] > unheld[24, 5:35, 2]).all()  # the bruise it was


PALER_LIPS = (150.0, 160.0, 200.0)  # than the target's lips
DARKER_LIPS = (40.0, 50.0, 90.0)


@pytest.mark.parametrize(
    ("darken", "lighten", "lips_bgr", "theirs"),
    [
        (1.0, 0.0, PALER_LIPS, True),  # a lipstick user's red stays deep, not coral
        (1.0, 0.0, DARKER_LIPS, False),  # the darker of the two
        (0.0, 1.0, DARKER_LIPS, True),  # a dark source lip on a paler-lipped user
        (0.0, 1.0, PALER_LIPS, False),
        (1.0, 1.0, PALER_LIPS, True),  # both ways: the renderer's lips (FEATURES)
        (1.0, 1.0, DARKER_LIPS, True),
    ],
)
def test_the_lips_lightness_moves_to_the_targets_as_asked(
    darken: float, lighten: float, lips_bgr: tuple[float, float, float], theirs: bool
) -> None:
    """`darken` 1: a lip pixel takes the target's lightness where the target's is
    darker; `lighten` 1: where it is lighter; otherwise it keeps the render's. At the
    target's lightness it is the target's colour exactly (at a lighter one, a paler
    form of it: test_the_lips_take_the_targets_hue_at_the_renders_lightness)."""
    render, own, lips = _grid()
    inside = lips == 1.0
    render[inside] = lips_bgr
    out = own_colour.own_colour(render, own, lips, share=1.0, darken=darken, lighten=lighten)
    expected = own[inside] if theirs else render[inside]
    np.testing.assert_allclose(out[inside] @ LUMA, expected @ LUMA, rtol=1e-4)
    if theirs:
        np.testing.assert_allclose(_chroma(out[inside]), _chroma(own[inside]), atol=1e-5)


def test_the_renderer_gives_the_lips_the_targets_lightness_and_the_brows_the_sources() -> None:
    assert (own_colour.LIPS, 1.0, 1.0) in own_colour.FEATURES
    assert (own_colour.BROWS_CHANNEL, 0.0, 0.0) in own_colour.FEATURES


def test_a_render_dipping_below_black_stays_finite() -> None:
    """The steps before can leave a render pixel a little below 0; its lightness's root
    was NaN, and the softening after spread it over the whole face (a black face on
    anon_dflw_077_1 onto anon_dflw_020_1)."""
    render, own, lips = _grid()
    render[20, 10] = (-2.0, -1.0, -3.0)
    out = own_colour.own_colour(render, own, lips, share=1.0)
    assert np.isfinite(out).all()


def test_no_share_or_no_feature_leaves_the_render_as_it_is() -> None:
    render, own, lips = _grid()
    np.testing.assert_array_equal(own_colour.own_colour(render, own, lips, 0.0), render)
    np.testing.assert_array_equal(own_colour.own_colour(render, own, np.zeros_like(lips)), render)
    # A far face's few lip pixels have no typical colour to hold to: left as they are.
    few = np.zeros_like(lips)
    few[20, 10 : 10 + own_colour.MIN_SURE - 1] = 1.0
    np.testing.assert_array_equal(own_colour.own_colour(render, own, few), render)
    few[20, 10 + own_colour.MIN_SURE - 1] = 1.0  # one more: now it has one
    assert not np.array_equal(own_colour.own_colour(render, own, few), render)


def test_the_masks_are_the_lips_red_and_the_brows() -> None:
    masks = own_colour.regions()
    assert masks.shape == (own_colour.MASK_SIZE, own_colour.MASK_SIZE, 2)
    for channel in (own_colour.LIPS, own_colour.BROWS_CHANNEL):
        covered = float((masks[..., channel] > 0.5).mean())
        assert 0.005 < covered < 0.06, (channel, covered)  # a small part of the face
        assert masks[..., channel].max() > 0.99
    assert not ((masks[..., 0] > 0.1) & (masks[..., 1] > 0.1)).any()  # apart


def _share(region: np.ndarray, channel: int) -> float:
    """One channel's (BGR) share of a region's mean colour."""
    mean = region.astype(np.float64).mean(axis=0)
    return float(mean[channel] / mean.sum())


@pytest.mark.testdata
def test_a_sources_lipstick_and_its_brows_blue_cast_do_not_ride_along(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anon_inspireface_1561_1 wears red lipstick; robert_downey_jr_1's lips are a
    muted pink-brown. obama_2's dark brows came out navy on anon_inspireface_sad_1's
    brown-haired, paler face. With the step the lips are about as red as the target's
    own and the brows about as blue (when written: the lips' red share of the colour
    0.442 against the target's 0.435, without the step 0.464; the brows' blue share
    0.269 against 0.266, without 0.282)."""

    def colours() -> tuple[float, float, float, float]:
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
        red = _share(packet.output[lips], 2), _share(frame[lips], 2)
        frame, packet, face = swapped(
            library, dev("obama_2.jpg"), dev("anon_inspireface_sad_1.png")
        )
        assert packet.output is not None
        assert face.landmarks is not None
        brows = polygon_mask(face.landmarks[list(BROWS[0])], frame.shape) | polygon_mask(
            face.landmarks[list(BROWS[1])], frame.shape
        )
        assert brows.sum() > 100
        blue = _share(packet.output[brows], 0), _share(frame[brows], 0)
        return red[0], red[1], blue[0], blue[1]

    red, target_red, blue, target_blue = colours()
    monkeypatch.setattr(own_colour, "own_colour", lambda image, *_, **__: image)
    red_without, _, blue_without, _ = colours()
    assert abs(red - target_red) < 0.01, (red, target_red)
    assert red_without - target_red > 0.02, (red_without, target_red)
    assert abs(blue - target_blue) < 0.006, (blue, target_blue)
    assert blue_without - target_blue > 0.012, (blue_without, target_blue)


@pytest.mark.testdata
def test_a_dark_lipped_source_leaves_a_pale_lipped_user_her_own_lips(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """obama_2's lips are much darker than anon_inspireface_zy_1's coral ones, and with
    the lips at the darker of the two lightnesses they came out brown. Now their mean
    grey is the target's (when written: OURS against the target's THEIRS; the darker of
    the two: DARKER)."""

    def lip_grey() -> tuple[float, float]:
        frame, packet, face = swapped(library, dev("obama_2.jpg"), dev("anon_inspireface_zy_1.png"))
        assert packet.output is not None
        lips = erode(
            region_mask(face, "lips_outer", frame.shape)
            & ~region_mask(face, "lips_inner", frame.shape),
            2,
        )
        assert lips.sum() > 200
        grey = (packet.output[lips].astype(np.float64) @ LUMA).mean()
        return float(grey), float((frame[lips].astype(np.float64) @ LUMA).mean())

    ours, theirs = lip_grey()
    monkeypatch.setattr(own_colour, "FEATURES", ((own_colour.LIPS, 1.0, 0.0),))
    darker, _ = lip_grey()
    assert abs(ours - theirs) < 8.0
    assert darker < theirs - 15.0  # the brown lips, as they were


@pytest.mark.testdata
def test_a_face_with_a_non_finite_pixel_fails_the_frame_instead_of_going_out_black(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A NaN left by any step spreads through the softening over the whole face: the
    frame fails with a message (the output guard covers it) and nothing is sent."""

    def poisoned(image: np.ndarray, *_: object, **__: object) -> np.ndarray:
        out = np.array(image, copy=True)
        out[out.shape[0] // 2, out.shape[1] // 2] = np.nan
        return out

    monkeypatch.setattr(own_colour, "own_colour", poisoned)
    source, target = dev("obama_2.jpg"), dev("anon_inspireface_sad_1.png")
    settings = settings_for(library, source)
    engine = Engine(build_stages(settings, library=library), settings)
    packet = engine.process(FramePacket(0, time.monotonic_ns(), read_image(target)))
    assert packet.output is None
    assert packet.error is not None and "non-finite" in packet.error
