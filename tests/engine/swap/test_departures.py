"""A source photo's own light inside the face: a specular stripe down the nose and a
cast-shadow band across a cheek must not come out on the target (engine/swap/departures.py,
with the shadow and highlight steps of engine/swap/shadows.py before it, and the render's
hold on the source's skin departures after it: engine/swap/skin_texture.py).

The check reads the output as a viewer would: how far its plain skin departs from its own
broad shading (Lab, the mid scale a stripe or a blotch lives at), where the swap of the
clean photo does not. A control run with the cleaning steps switched off shows that the
marks do come through without them, so the test can fail."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.core.face_records import Face
from engine.core.imageio import read_image, write_image
from engine.core.settings import EngineSettings, SwapSettings
from engine.core.types import F32, Frame
from engine.render.uvmap import uv_map
from engine.swap import departures, identity, skin_texture, target_glare
from engine.swap.library import SourceLibrary
from engine.swap.shading import feature_masks
from tests.engine.swap.support import EILEEN, GRACE, analyzer, fitted_face, swap_frame

NOSE_RIDGE = (168, 6, 197, 195, 5, 4)
# Across the face's right cheek (image left), from below the eye to the mouth's corner.
CHEEK = (116, 117, 118, 101, 36, 206, 216, 212, 214, 192, 213, 147, 123)


def _iod(face: Face) -> float:
    assert face.fit is not None
    return float(face.fit.pose.scale)


def _marked_photo(frame: Frame, face: Face) -> Frame:
    """The photo with a glossy stripe down the nose (2× lighter, 0.07 IOD wide) and a
    cast shadow (0.35×) over one cheek, both with soft edges as a lamp would make them."""
    assert face.landmarks is not None
    points = face.landmarks[:, :2]
    iod = _iod(face)
    stripe = np.zeros(frame.shape[:2], np.float32)
    ridge = np.round(points[list(NOSE_RIDGE)]).astype(np.int32)
    cv2.polylines(stripe, [ridge], False, 1.0, max(2, round(0.07 * iod)))
    stripe = cv2.GaussianBlur(stripe, (0, 0), 0.015 * iod)
    shadow = np.zeros(frame.shape[:2], np.float32)
    cv2.fillPoly(shadow, [np.round(points[list(CHEEK)]).astype(np.int32)], 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 0.02 * iod)
    gain = (1.0 + 1.0 * stripe) * (1.0 - 0.65 * shadow)
    return np.clip(frame.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)


def _plain_skin(face: Face, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """The target's face less its eyes, brows and lips (dilated 0.1 IOD), eroded 0.06 IOD."""
    assert face.landmarks is not None
    points = np.round(face.landmarks[:, :2]).astype(np.int32)
    iod = _iod(face)
    hull = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(points), 1)
    disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(0.06 * iod) + 1,) * 2)
    hull = cv2.erode(hull, disk)
    features = np.zeros(shape[:2], np.uint8)
    from engine.face.mesh import topology

    topo = topology()
    for name in ("left_eye", "right_eye", "left_eyebrow", "right_eyebrow", "lips_outer"):
        cv2.fillConvexPoly(features, cv2.convexHull(points[list(topo.regions[name])]), 1)
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(0.1 * iod) + 1,) * 2)
    return (hull > 0) & (cv2.dilate(features, grow) == 0)


def _departs(image: Frame, skin: NDArray[np.bool_], iod: float) -> NDArray[np.bool_]:
    """Where the image's lightness departs from its broad skin shading by more than 14 L*."""
    lab = cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    weight = skin.astype(np.float32)
    sigma = 0.15 * iod
    broad = cv2.GaussianBlur(lab[..., 0] * weight, (0, 0), sigma) / (
        cv2.GaussianBlur(weight, (0, 0), sigma) + 1e-6
    )
    detail = cv2.GaussianBlur(lab[..., 0] - broad, (0, 0), max(0.5, 0.03 * iod))
    return (np.abs(detail) > 14.0) & skin


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Grace's photo as it is, and with a stripe and a shadow band painted on."""
    folder = tmp_path_factory.mktemp("marked")
    frame = read_image(GRACE)
    clean, marked = folder / "clean.png", folder / "marked.png"
    write_image(clean, frame)
    write_image(marked, _marked_photo(frame, fitted_face(frame)))
    return clean, marked


def _artifacts(source: Path, cache: Path) -> float:
    """The fraction of the target's plain skin where the swap of `source` departs."""
    library = SourceLibrary(analyzer(), cache_dir=cache)
    key = library.load_identity([source]).key
    target = read_image(EILEEN)
    packet = swap_frame(library, EngineSettings(swap=SwapSettings(source_key=key)), target)
    assert packet.output is not None
    face = fitted_face(target)
    skin = _plain_skin(face, target.shape)
    return float(_departs(packet.output, skin, _iod(face)).sum() / skin.sum())


@pytest.fixture
def without_cleaning(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The source's texture as de-lit by its smooth field alone: no shadow lifting,
    highlight taming, lit-side evening or departure evening."""
    monkeypatch.setattr(identity.departures, "even_departures", lambda texture: texture)
    monkeypatch.setattr(identity.shadows, "lift_shadows", lambda texture, *_: texture)
    monkeypatch.setattr(identity.shadows, "tame_highlights", lambda texture, *_: texture)
    monkeypatch.setattr(identity.shadows, "even_lit_skin", lambda texture, *_: texture)
    yield


@pytest.fixture
def without_hold(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The render keeps all of the source's skin departures, however they spread."""
    monkeypatch.setattr(skin_texture, "share", lambda target, source: 1.0)
    yield


def test_a_painted_stripe_and_shadow_band_do_not_come_through(
    photos: tuple[Path, Path], tmp_path: Path
) -> None:
    clean, marked = photos
    added = _artifacts(marked, tmp_path / "a") - _artifacts(clean, tmp_path / "b")
    # Measured: 0.0058 of the plain skin (a few pixels at the stripe's ends and round the
    # eyes, whose lids the band darkened; 0.0050 with the photo's eyes, 0.0019 two
    # stops ago); without the departure step 0.010, without any of the cleaning 0.021
    # (the controls below). Stop 43, with the hold on the skin's departures and the
    # target's texture (skin_texture.py; the hold leaves this pair as it was): 0.0023;
    # without the departure step and the hold 0.0087, without any of the cleaning
    # 0.0295.
    assert added < 0.0075, added


def test_without_cleaning_the_stripe_and_band_come_through(
    photos: tuple[Path, Path], tmp_path: Path, without_cleaning: None, without_hold: None
) -> None:
    """The control: the marks are strong enough that the test above could fail."""
    clean, marked = photos
    added = _artifacts(marked, tmp_path / "a") - _artifacts(clean, tmp_path / "b")
    assert added > 0.015, added


def test_the_departure_step_is_what_takes_the_rest_out(
    photos: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, without_hold: None
) -> None:
    """The control for the departure step. The target's highlights (target_glare.py)
    are left out too: showing the target's own skin where it is much lighter and paler
    than the render, that step took the marks out here as well (stop 45, without the
    departure step: the clean source's swap 0.0524 of the plain skin, the marked one's
    0.0516 with it; 0.0593 and 0.0666 without)."""
    monkeypatch.setattr(identity.departures, "even_departures", lambda texture: texture)
    monkeypatch.setattr(target_glare, "glare", lambda *_: None)
    clean, marked = photos
    added = _artifacts(marked, tmp_path / "a") - _artifacts(clean, tmp_path / "b")
    assert added > 0.006, added


def test_the_hold_on_the_skins_departures_alone_keeps_the_marks_out(
    photos: tuple[Path, Path], tmp_path: Path, without_cleaning: None
) -> None:
    """With none of the texture's cleaning, the render's hold on the source's skin
    departures (the marked photo's skin spreads far more than Eileen's) is enough:
    measured −0.019 (the marked photo's skin comes out smoother than the clean one's)."""
    clean, marked = photos
    added = _artifacts(marked, tmp_path / "a") - _artifacts(clean, tmp_path / "b")
    assert added < 0.0075, added


def _skin_texture(size: int, seed: int = 0) -> F32:
    rng = np.random.default_rng(seed)
    skin = np.broadcast_to(np.float32([120, 150, 200]), (size, size, 3)).copy()
    return (skin * (1.0 + 0.02 * rng.standard_normal((size, size, 1)))).astype(np.float32)


def test_strong_departures_are_limited_and_small_ones_and_features_kept() -> None:
    size = 256
    texture = _skin_texture(size)
    u = (np.arange(size) + 0.5) / size
    stripe = (np.abs(u - 0.5) < 0.01)[None, :] & (u > 0.45)[:, None] & (u < 0.6)[:, None]
    gentle = (np.abs(u - 0.3) < 0.05)[None, :] & (u > 0.6)[:, None] & (u < 0.7)[:, None]
    texture[stripe] *= 2.0  # a highlight: far past the limit
    texture[gentle] *= 1.08  # a soft shade: well inside it
    eyes = cv2.resize(feature_masks(128).eyes, (size, size)) > 0.99
    texture[eyes] = (40.0, 40.0, 40.0)  # a dark iris is identity, not light
    out = departures.even_departures(texture)
    covered = uv_map(size).covered
    lum = np.array([0.114, 0.587, 0.299], np.float32)
    ratio = (out @ lum) / (texture @ lum)
    # The stripe's 2× is pulled most of the way back (the limit, log 0.25, is on its
    # departure from the broad shading, which the stripe itself lifts a little) ...
    assert float(np.median(ratio[stripe & covered])) < 0.75
    # ... the gentle shade and the iris almost as they were.
    assert abs(float(np.median(ratio[gentle & covered])) - 1.0) < 0.02
    assert abs(float(np.median(ratio[eyes])) - 1.0) < 0.01


def test_a_broad_shade_is_held_near_the_skin_and_features_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A socket-sized shade (0.6×, 0.15 of the texture across: what a light from above
    or a laugh leaves that the smooth field cannot take out) comes up towards the skin's
    median; without the broad limit it stays nearly as it was (the control)."""
    size = 256
    texture = _skin_texture(size)
    u = (np.arange(size) + 0.5) / size
    shade = ((u > 0.62) & (u < 0.77))[None, :] & ((u > 0.55) & (u < 0.70))[:, None]
    texture[shade] *= 0.6
    eyes = cv2.resize(feature_masks(128).eyes, (size, size)) > 0.99
    texture[eyes] = (40.0, 40.0, 40.0)
    shade &= uv_map(size).covered
    lum = np.array([0.114, 0.587, 0.299], np.float32)
    skin = float(np.median(_skin_texture(size) @ lum))
    out = departures.even_departures(texture)
    # Measured 0.76: the broad part held to log 0.10, the rest is the texel's own
    # departure from a broad shading the shade itself darkens, limited at 0.25.
    assert float(np.median((out @ lum)[shade])) / skin > 0.72
    assert abs(float(np.median((out @ lum)[eyes] / (texture @ lum)[eyes])) - 1.0) < 0.01
    monkeypatch.setattr(departures, "BROAD_LIGHTNESS_LIMIT", 10.0)  # no limit, in effect
    unlimited = departures.even_departures(texture)
    assert float(np.median((unlimited @ lum)[shade])) / skin < 0.66  # measured 0.62
