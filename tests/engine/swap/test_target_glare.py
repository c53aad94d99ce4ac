"""The target's own highlights stay on the new face; its lit skin and its features do not
come through (engine/swap/target_glare.py)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.types import Frame
from engine.swap import target_glare
from engine.swap.library import SourceLibrary
from tests.engine.swap.support import EILEEN, GRACE, analyzer, swap_frame
from tests.engine.swap.test_composite import settings_for

SKIN = np.array([120.0, 150.0, 200.0], np.float32)  # BGR: a warm skin
IOD = 80.0


def _scene(spot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(own, image, plain) on a 120×120 grid: the render is plain skin; the target the
    same skin with `spot` (BGR) painted in a disc of radius 8 at the centre, and a
    little pore noise."""
    rng = np.random.default_rng(3)
    image = np.broadcast_to(SKIN, (120, 120, 3)).astype(np.float32)
    own = image + rng.normal(0.0, 1.5, image.shape).astype(np.float32)
    yy, xx = np.mgrid[:120, :120]
    own[np.hypot(xx - 60, yy - 60) <= 8] = spot
    return own, image, np.ones((120, 120), np.float32)


def _shine(own: np.ndarray, image: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """`target_glare.glare` as a mask, all zeros where it found no highlight (None)."""
    found = target_glare.glare(own, image, plain, IOD)
    return np.zeros(plain.shape, np.float32) if found is None else found


def test_a_pale_bright_spot_is_a_highlight_with_its_rim() -> None:
    own, image, plain = _scene(np.array([245.0, 248.0, 250.0], np.float32))
    shine = target_glare.glare(own, image, plain, IOD)
    assert shine is not None
    assert shine[56:65, 56:65].min() > 0.95  # its body
    assert shine[60, 67] > 0.5  # its rim, one pixel in from the edge
    assert shine[:30].max() == 0.0 and shine[:, :30].max() == 0.0  # nothing far off


@pytest.mark.parametrize(
    "spot",
    [
        pytest.param(SKIN * 1.25, id="lit skin keeping its colour"),
        pytest.param(SKIN * 0.6, id="a shadow"),
        pytest.param(np.array([40.0, 40.0, 40.0], np.float32), id="a dark pale mole"),
    ],
)
def test_what_is_not_a_highlight_is_left_to_the_render(spot: np.ndarray) -> None:
    own, image, plain = _scene(spot.astype(np.float32))
    assert _shine(own, image, plain).max() < 0.05


def test_a_speck_and_a_feature_are_not_highlights() -> None:
    """A catchlight-sized speck (2 px) is not a region; a highlight off the plain skin
    (on an eye, a lip: `plain` 0) is the feature's."""
    own, image, plain = _scene(SKIN)
    own[60:62, 60:62] = 250.0
    assert _shine(own, image, plain).max() < 0.05
    own, image, plain = _scene(np.array([245.0, 248.0, 250.0], np.float32))
    plain[40:80, 40:80] = 0.0
    assert _shine(own, image, plain).max() < 0.05


def _nose_spot(frame: Frame) -> tuple[Frame, np.ndarray]:
    """`frame` with a clipped highlight (a disc 0.07 IOD across, 1 px soft edge) painted
    on the nose tip, and each pixel's distance from its centre in IODs."""
    face = analyzer().analyze_image(frame)[0]
    assert face.landmarks is not None
    lm = face.landmarks[:, :2]
    iod = float(np.linalg.norm(lm[33] - lm[263]))
    yy, xx = np.mgrid[: frame.shape[0], : frame.shape[1]]
    apart = np.hypot(xx - lm[4, 0], yy - lm[4, 1]) / iod
    spot = np.clip((0.07 - apart) * iod, 0.0, 1.0)[..., None]
    return (frame * (1.0 - spot) + 250.0 * spot).astype(np.uint8), apart


def test_a_clipped_highlight_on_the_targets_nose_stays_white(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the step the spot came out as the new face's skin, a grey-pink disc
    outlined by the frame's own fine detail (its mean 184 grey levels when written, the
    target's 250); with it, it is the target's white (247)."""
    frame, apart = _nose_spot(read_image(GRACE))
    settings = settings_for(library, EILEEN)
    body = apart < 0.05

    def spot_grey() -> float:
        out = swap_frame(library, settings, frame).output
        assert out is not None
        return float(out.astype(np.float32).mean(axis=2)[body].mean())

    kept = spot_grey()
    monkeypatch.setattr(target_glare, "glare", lambda *_: None)
    lost = spot_grey()
    assert kept > 235.0
    assert kept > lost + 30.0
