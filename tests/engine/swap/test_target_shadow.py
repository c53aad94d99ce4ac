"""The target's own deep shadows stay on the new face, in their own colour; its gentle
shading is left to the light field (engine/swap/target_shadow.py)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.swap import target_shadow
from engine.swap.library import SourceLibrary
from tests.engine.swap.support import EILEEN, GRACE, analyzer, swap_frame
from tests.engine.swap.test_composite import settings_for

SKIN = np.array([120.0, 150.0, 200.0], np.float32)  # BGR: a warm skin
IOD = 80.0


def _scene(shade: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(own, image, plain) on a 120×120 grid: the render is plain skin, the target the
    same skin with its left half times `shade` (BGR)."""
    image = np.broadcast_to(SKIN, (120, 120, 3)).astype(np.float32)
    own = image.copy()
    own[:, :60] *= shade
    return own, image, np.ones((120, 120), np.float32)


def test_a_deep_shadow_darkens_the_render_in_its_own_colour() -> None:
    warm = np.array([0.35, 0.42, 0.5], np.float32)  # darker, and warmer than the skin
    own, image, plain = _scene(warm)
    gain = target_shadow.shadow_gain(own, image, plain, IOD)
    assert gain is not None
    np.testing.assert_allclose(gain[60, 20], warm, atol=0.01)  # inside: the target's
    np.testing.assert_allclose(gain[60, 100], 1.0, atol=1e-6)  # the lit side: untouched


def test_gentle_shading_and_what_is_not_skin_are_left_alone() -> None:
    own, image, plain = _scene(np.full(3, 0.85, np.float32))
    assert target_shadow.shadow_gain(own, image, plain, IOD) is None
    own, image, plain = _scene(np.full(3, 0.4, np.float32))
    plain[:, :70] = 0.0  # the shadow falls on a feature (an eye, a brow): its own
    assert target_shadow.shadow_gain(own, image, plain, IOD) is None


def test_a_cast_shadow_on_the_targets_cheek_stays(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grace Hopper with a cast shadow painted over her right cheek (0.4 of its light):
    with the step the output's cheek there is about as dark as the target's (its mean
    grey 1.02 times the target's when written), without it the new face is lit there
    (1.8 times)."""
    frame = read_image(GRACE)
    face = analyzer().analyze_image(frame)[0]
    assert face.landmarks is not None
    lm = face.landmarks[:, :2]
    iod = float(np.linalg.norm(lm[33] - lm[263]))
    yy, xx = np.mgrid[: frame.shape[0], : frame.shape[1]]
    # A disc 0.25 IOD across on the cheek below the right eye (mesh point 205).
    spot = np.hypot(xx - lm[205, 0], yy - lm[205, 1]) < 0.25 * iod
    shaded = frame.astype(np.float32)
    shaded[spot] *= 0.4
    shaded = shaded.astype(np.uint8)
    core = np.hypot(xx - lm[205, 0], yy - lm[205, 1]) < 0.15 * iod
    settings = settings_for(library, EILEEN)

    def cheek_over_target() -> float:
        out = swap_frame(library, settings, shaded).output
        assert out is not None
        grey = out.astype(np.float32).mean(axis=2)[core].mean()
        return float(grey / shaded.astype(np.float32).mean(axis=2)[core].mean())

    kept = cheek_over_target()
    monkeypatch.setattr(target_shadow, "shadow_gain", lambda *_: None)
    lost = cheek_over_target()
    assert kept < 1.2
    assert lost > kept + 0.3
