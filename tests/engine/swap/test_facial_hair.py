"""The target's beard, moustache or stubble stays the target's; its plain skin is swapped."""

from __future__ import annotations

import numpy as np
import pytest

from engine.swap import facial_hair
from engine.swap.library import SourceLibrary
from tests.engine.swap.support import dev, dilate, polygon_mask, region_mask
from tests.engine.swap.test_composite import swapped

SKIN = 170.0
RNG = np.random.default_rng(7)


def _face(patch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(own, lower, cheeks) on a 120×120 grid: skin with a little pore noise, the cheeks
    in the upper band, the lower face below; `patch` (40×40 grey) pasted in the lower."""
    grey = SKIN + RNG.normal(0.0, 1.5, (120, 120))
    grey[70:110, 40:80] = patch
    own = np.repeat(grey[..., None], 3, axis=2).astype(np.float32)
    lower = np.zeros((120, 120), np.float32)
    lower[60:, :] = 1.0
    cheeks = np.zeros((120, 120), bool)
    cheeks[20:50, :] = True
    return own, lower, cheeks


def _inside(mask: np.ndarray) -> float:
    return float(mask[80:100, 50:70].mean())


def test_dark_rough_hair_is_found() -> None:
    own, lower, cheeks = _face(SKIN - 60.0 + RNG.normal(0.0, 25.0, (40, 40)))
    assert _inside(facial_hair.facial_hair(own, lower, cheeks, lower, 80.0)) > 0.8


@pytest.mark.parametrize(
    "patch",
    [
        pytest.param(np.full((40, 40), SKIN - 60.0), id="a smooth shadow"),
        pytest.param(SKIN + RNG.normal(0.0, 25.0, (40, 40)), id="rough bright skin"),
    ],
)
def test_shadows_and_rough_skin_are_not_hair(patch: np.ndarray) -> None:
    own, lower, cheeks = _face(patch)
    assert _inside(facial_hair.facial_hair(own, lower, cheeks, lower, 80.0)) < 0.05


def test_in_the_moustache_band_darker_alone_is_hair() -> None:
    """A soft moustache (a blurry photo's: dark, no rougher than the cheeks, the skin's
    own saturation) is hair inside the moustache's band and a shadow outside it."""
    own, lower, cheeks = _face(np.full((40, 40), SKIN - 40.0))
    band = np.zeros_like(lower)
    band[70:110, 40:80] = 1.0
    assert _inside(facial_hair.facial_hair(own, lower, cheeks, lower, 80.0, band)) > 0.8
    assert _inside(facial_hair.facial_hair(own, lower, cheeks, lower, 80.0)) < 0.05
    # Skin as light as the cheeks is not, band or not.
    plain, lower, cheeks = _face(SKIN + RNG.normal(0.0, 1.5, (40, 40)))
    assert _inside(facial_hair.facial_hair(plain, lower, cheeks, lower, 80.0, band)) < 0.05


def test_hair_is_only_looked_for_in_the_lower_face() -> None:
    own, lower, cheeks = _face(SKIN - 60.0 + RNG.normal(0.0, 25.0, (40, 40)))
    assert not facial_hair.facial_hair(
        own, np.zeros_like(lower), cheeks, np.zeros_like(lower), 80.0
    ).any()


@pytest.mark.testdata
def test_a_bearded_targets_beard_stays_and_a_clean_shaven_ones_skin_is_swapped(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alex_lacamoire_2 has a full beard: with the step, the output's lower face stays
    nearer the target's own than without it (24 % nearer when written). On
    anon_inspireface_sad_1's plain skin it changes little (4 %: a little shade at the
    jaw's edge reads as hair)."""

    def lower_face_change(target: str) -> float:
        frame, packet, face = swapped(library, dev("biden_2.jpg"), dev(target))
        assert packet.output is not None
        chin = region_mask(face, "face_oval", frame.shape) & ~region_mask(
            face, "lips_outer", frame.shape
        )
        rows = np.nonzero(chin.any(axis=1))[0]
        chin[: rows[0] + int(0.6 * (rows[-1] - rows[0]))] = False  # the lower 40 %
        diff = np.abs(packet.output.astype(np.float32) - frame).mean(axis=2)
        return float(diff[chin].mean())

    with_step = {
        t: lower_face_change(t) for t in ("alex_lacamoire_2.jpg", "anon_inspireface_sad_1.png")
    }
    monkeypatch.setattr(
        facial_hair, "facial_hair", lambda own, *_: np.zeros(own.shape[:2], np.float32)
    )
    without = {t: lower_face_change(t) for t in with_step}
    kept = {t: 1.0 - with_step[t] / without[t] for t in with_step}
    assert kept["alex_lacamoire_2.jpg"] > 0.15
    assert kept["anon_inspireface_sad_1.png"] < 0.08


@pytest.mark.testdata
def test_a_targets_soft_moustache_stays(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lin_manuel_miranda_1's thin moustache and alex_lacamoire_1's (a soft, side-lit
    photo) failed the rough-and-pale test: with the moustache's band the output between
    the nose and the upper lip is nearer the target's own (12-14 % when written) and
    darker, as the moustache is."""

    def upper_lip(target: str) -> tuple[float, float]:
        """(mean |output − target|, the output's mean grey) over the target's band."""
        frame, packet, face = swapped(library, dev("anon_inspireface_sad_1.png"), dev(target))
        assert packet.output is not None and face.landmarks is not None
        band = polygon_mask(face.landmarks[list(facial_hair.BAND_VERTICES), :2], frame.shape)
        band &= ~dilate(region_mask(face, "lips_outer", frame.shape), 2)
        output = packet.output.astype(np.float32)
        diff = np.abs(output - frame).mean(axis=2)
        return float(diff[band].mean()), float(output.mean(axis=2)[band].mean())

    targets = ("lin_manuel_miranda_1.png", "alex_lacamoire_1.png")
    with_band = {t: upper_lip(t) for t in targets}
    monkeypatch.setattr(facial_hair, "BAND_DARKER", (1e6, 2e6))  # never dark enough
    without = {t: upper_lip(t) for t in targets}
    for t in targets:
        assert with_band[t][0] < 0.92 * without[t][0], t
        assert with_band[t][1] < without[t][1] - 2.0, t
