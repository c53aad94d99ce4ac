"""The source's skin departures are held to the target's own amount: a blotchy source
on a smooth target comes out smooth; a smooth source is never roughened."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.settings import EngineSettings
from engine.render.uvmap import uv_map
from engine.swap import skin_texture
from engine.swap.library import SourceLibrary
from engine.swap.shading import feature_masks
from tests.engine.swap.support import dev, dilate, erode, hull_mask, region_mask
from tests.engine.swap.test_composite import swapped

SIZE = 256


SKIN = np.array([110.0, 140.0, 190.0], np.float32)  # BGR


def _blotchy(amount: float, seed: int = 0) -> np.ndarray:
    """A de-lit texture of one skin colour with blotches a few texels to a tenth of the
    square across, `amount` their log-lightness sigma (before smoothing)."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, 1.0, (SIZE, SIZE)).astype(np.float32)
    noise = cv2.GaussianBlur(noise, (0, 0), 6.0)
    noise *= amount / noise.std()
    return (SKIN * np.exp(noise)[..., None]).astype(np.float32)


def test_spread_is_a_robust_sigma() -> None:
    rng = np.random.default_rng(1)
    values = rng.normal(0.0, 0.1, (200, 200)).astype(np.float32)
    values[:20] = 5.0  # a tenth of outliers (hair, a highlight) hardly moves it
    measured = np.ones(values.shape, bool)
    assert skin_texture.spread(values, measured) == pytest.approx(0.1, rel=0.2)
    assert skin_texture.spread(values, np.zeros(values.shape, bool)) == 0.0


def test_a_blotchy_source_measures_its_spread_and_keeps_its_features_as_they_are() -> None:
    smooth = skin_texture.source_skin(_blotchy(0.01))
    blotchy = skin_texture.source_skin(_blotchy(0.15))
    assert blotchy.spread > 5.0 * smooth.spread
    size = skin_texture.RESIDUAL_SIZE
    assert blotchy.departures.shape == (size, size, 3)
    features = feature_masks(size).features > 0.999
    outside = ~uv_map(size).covered
    assert np.abs(blotchy.departures[features]).max() < 1e-3  # the soft mask's tail
    assert np.abs(blotchy.departures[outside]).max() == 0.0
    plain = feature_masks(size).skin > 0.99
    assert np.abs(blotchy.departures[plain]).mean() > 0.05


def test_the_sources_forehead_hair_is_not_counted_as_its_skin() -> None:
    albedo = _blotchy(0.03)
    albedo[: SIZE // 3] *= 0.2  # hair over the forehead: dark
    skin = np.ones((SIZE, SIZE), np.float32)
    skin[: SIZE // 3] = 0.0
    with_hair = skin_texture.source_skin(albedo)
    without = skin_texture.source_skin(albedo, skin)
    assert without.spread < 0.5 * with_hair.spread


def test_share_is_the_ratio_of_the_spreads_at_most_one() -> None:
    assert skin_texture.share(0.03, 0.15) == pytest.approx(0.2)
    assert skin_texture.share(0.2, 0.1) == 1.0  # a smooth source is not roughened
    assert skin_texture.share(0.1, 0.0) == 1.0


def test_the_texture_band_is_the_targets_up_to_the_default_likeness() -> None:
    until = skin_texture.OWN_TEXTURE_UNTIL
    assert until == EngineSettings().swap.likeness  # the default takes the target's
    for likeness in (0.0, 0.3, until):
        assert skin_texture.fill(0.05, 0.1, likeness) == 1.0  # a rougher source too
        assert skin_texture.fill(0.0, 0.05, likeness) == 1.0  # an even target: even
    # Above it the source's comes back, all of it at 1.
    assert skin_texture.fill(0.05, 0.1, (1.0 + until) / 2) == pytest.approx(0.5)
    assert skin_texture.fill(0.05, 0.1, 1.0) == 0.0


def test_at_full_likeness_fill_is_what_the_sources_spread_lacks_of_the_targets() -> None:
    assert skin_texture.fill(0.08, 0.034, 1.0) == pytest.approx(0.575)
    assert skin_texture.fill(0.0, 0.05, 1.0) == 0.0
    # Never less than that share, whatever the likeness.
    assert skin_texture.fill(0.08, 0.034, 0.9) == pytest.approx(0.575)


def test_the_targets_texture_band_is_added_over_the_plain_skin_only() -> None:
    """A smooth render over a target whose skin has lines a tenth of an IOD apart and
    grain; the render's features (a dark bar) are left as they are."""
    iod = 80.0
    size = 200
    rng = np.random.default_rng(3)
    y = np.mgrid[0:size, 0:size][0].astype(np.float32)
    lines = 12.0 * np.sin(2 * np.pi * y / (0.1 * iod))  # in the texture band
    grain = rng.normal(0.0, 6.0, (size, size)).astype(np.float32)  # finer than it
    own = np.dstack([150.0 + lines + grain] * 3).astype(np.float32)
    render = np.full((size, size, 3), 140.0, np.float32)
    render[90:110, 40:160] = 40.0  # a feature
    plain = np.ones((size, size), np.float32)
    plain[80:120, 30:170] = 0.0
    assert skin_texture.with_target_texture(render, own, plain, iod, 0.0) is render
    out = skin_texture.with_target_texture(render, own, plain, iod, 0.5)
    np.testing.assert_array_equal(out[plain == 0.0], render[plain == 0.0])
    inner = np.zeros((size, size), bool)
    inner[20:60, 20:180] = True  # plain skin away from every edge
    added = (out - render)[..., 1][inner]
    # Half of the lines come through, as a share of the skin's level (the render's 140
    # against the target's 150; the band's box filters pass some of them less), little
    # of the grain, and none of the target's level. Measured: 0.44 of the lines.
    assert np.corrcoef(added, lines[inner])[0, 1] > 0.9
    assert 0.3 < added.std() / lines[inner].std() < 0.55
    assert abs(float(added.mean())) < 1.0


def test_the_targets_lines_never_take_a_dark_render_below_black() -> None:
    """A deep line in the target (its skin at 200, the line at 20) over a render in
    shadow (at 10): added as a difference of grey levels, the line took the render far
    below black (the side-lit render of tests/engine/swap/test_form_light.py went
    negative); as a share of the skin it darkens the render by the line's own share."""
    size, iod = 120, 80.0
    own = np.full((size, size, 3), 200.0, np.float32)
    own[:, 58:62] = 20.0
    render = np.full((size, size, 3), 10.0, np.float32)
    out = skin_texture.with_target_texture(render, own, np.ones((size, size), np.float32), iod, 1.0)
    assert float(out.min()) > 0.0
    assert float(out[60, 60, 0]) < 5.0  # the line shows, darker than the render's skin


def test_the_damped_gain_takes_the_sources_departures_down_to_the_share() -> None:
    albedo = _blotchy(0.15)
    skin = skin_texture.source_skin(albedo)
    gain = np.full((64, 64, 3), 1.2, np.float32)
    assert skin_texture.damped_gain(gain, skin, 1.0) is gain
    size = skin_texture.RESIDUAL_SIZE
    small = cv2.resize(albedo, (size, size), interpolation=cv2.INTER_AREA)
    plain = erode(feature_masks(size).skin > 0.99, 2)
    before = np.log(small[plain] @ [0.114, 0.587, 0.299]).std()
    after = {}
    for keep in (0.0, 0.5):
        lit = small * skin_texture.damped_gain(gain, skin, keep)
        after[keep] = np.log(lit[plain] @ [0.114, 0.587, 0.299]).std()
    # What stays at 0 is the smooth field's own slope (and the features' soft margins).
    assert after[0.0] < 0.25 * before
    assert 0.45 * before < after[0.5] < 0.65 * before


def _plain_cheeks(
    library: SourceLibrary, source: Path, target: Path, inside: float, off: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The swap of `source` onto `target`: (target frame, output, its plain skin, IOD),
    the plain skin `inside` IODs in from the face's edge and `off` IODs off the
    features and the nose."""
    frame, packet, face = swapped(library, source, target)
    assert face.landmarks is not None
    iod = float(np.linalg.norm(face.landmarks[33, :2] - face.landmarks[263, :2]))
    features = np.zeros(frame.shape[:2], bool)
    regions = ("left_eye", "right_eye", "left_eyebrow", "right_eyebrow", "lips_outer", "nose")
    for region in regions:
        features |= region_mask(face, region, frame.shape)
    skin = erode(hull_mask(face, frame.shape), round(inside * iod))
    return frame, packet.result, skin & ~dilate(features, round(off * iod)), iod


def _band(image: np.ndarray, iod: float) -> np.ndarray:
    """The log lightness's band between 0.05 and 0.3 inter-ocular distances: blotches
    and lines, not grain, not the broad light."""
    grey = np.log(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32) + 1.0)
    return cv2.GaussianBlur(grey, (0, 0), 0.05 * iod) - cv2.GaussianBlur(grey, (0, 0), 0.3 * iod)


@pytest.mark.testdata
def test_a_blotchy_dark_source_on_a_smooth_young_face_comes_out_smooth(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anon_inspireface_2963_1 (a dim, grainy photo) onto anon_inspireface_zy_1 (smooth,
    soft-lit): grey-brown patches over the cheeks and chin. What the swap adds to the
    target's own blotches and lines on the plain skin (off the features and the nose),
    when written: 0.027 with the step, 0.073 without."""
    source, target = dev("anon_inspireface_2963_1.jpg"), dev("anon_inspireface_zy_1.png")
    frame, result, skin, iod = _plain_cheeks(library, source, target, 0.15, 0.15)
    own = _band(frame, iod)

    def added(output: np.ndarray) -> float:
        return float((_band(output, iod) - own)[skin].std())

    damped = added(result)
    monkeypatch.setattr(skin_texture, "share", lambda target, source: 1.0)
    _, undamped, _ = swapped(library, source, target)
    assert damped < 0.5 * added(undamped.result)


@pytest.mark.testdata
def test_a_smooth_young_source_on_a_lined_face_takes_the_targets_skin_texture(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anon_inspireface_zy_2 (smooth, young) onto anon_inspireface_1561_1 (lined, tanned):
    a smooth mask on a lined head. With the step the output's texture band on the
    plain skin follows the target's own (when written: correlation 0.46, without it
    0.20)."""
    source, target = dev("anon_inspireface_zy_2.jpg"), dev("anon_inspireface_1561_1.jpg")
    frame, result, skin, iod = _plain_cheeks(library, source, target, 0.3, 0.1)

    def texture(image: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        return cv2.GaussianBlur(grey, (0, 0), 0.015 * iod) - cv2.GaussianBlur(
            grey, (0, 0), 0.05 * iod
        )

    own = texture(frame)[skin]
    with_fill = np.corrcoef(texture(result)[skin], own)[0, 1]
    monkeypatch.setattr(skin_texture, "fill", lambda target, source, likeness: 0.0)
    _, without, _ = swapped(library, source, target)
    without_fill = np.corrcoef(texture(without.result)[skin], own)[0, 1]
    assert with_fill > without_fill + 0.1


@pytest.mark.testdata
def test_a_rough_source_on_a_smooth_young_face_takes_the_targets_skin_texture(
    library: SourceLibrary,
) -> None:
    """obama_2 (an older man's skin, pores and lines) onto anon_inspireface_zy_1 (smooth,
    soft-lit): scaled to her spread, his grain still mottled her cheeks. At the default
    Likeness the output's texture band on the plain skin is hers; at full Likeness his
    comes back (as all Likenesses gave before stop 50). When written, what the swap adds
    to her band there (a sigma, log lightness): 0.0125 at the default, 0.0157 at full
    Likeness (0.0159 before); the bands' correlation 0.35 and 0.25 (0.25)."""
    source, target = dev("obama_2.jpg"), dev("anon_inspireface_zy_1.png")
    frame, result, skin, iod = _plain_cheeks(library, source, target, 0.2, 0.1)

    def texture(image: np.ndarray) -> np.ndarray:
        grey = np.log(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32) + 1.0)
        return cv2.GaussianBlur(grey, (0, 0), 0.012 * iod) - cv2.GaussianBlur(
            grey, (0, 0), 0.04 * iod
        )

    own = texture(frame)

    def added(output: np.ndarray) -> float:
        return float((texture(output) - own)[skin].std())

    def correlation(output: np.ndarray) -> float:
        return float(np.corrcoef(texture(output)[skin], own[skin])[0, 1])

    _, photos, _ = swapped(library, source, target, swap__likeness=1.0)
    assert added(result) < 0.88 * added(photos.result)
    assert correlation(result) > correlation(photos.result) + 0.06


def test_a_target_too_little_seen_to_measure_leaves_the_source_as_it_is() -> None:
    """A face in profile: fewer than MIN_TEXELS of the target's plain skin seen squarely.
    Its spread is not measured, and the source's skin is neither damped nor filled."""
    size = 64
    low = np.full((size, size, 3), 150.0, np.float32)
    weight = np.zeros((size, size), np.float32)
    assert skin_texture.target_spread(low, low, weight) is None
    assert skin_texture.share(None, 0.1) == 1.0
    assert skin_texture.fill(None, 0.1, 0.0) == 0.0
    weight[:] = 1.0  # all of it seen: measured (an even skin spreads 0)
    assert skin_texture.target_spread(low, low, weight) == 0.0
