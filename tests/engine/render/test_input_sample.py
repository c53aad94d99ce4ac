"""The renderer's sample of the frame under its patch, which the compositor and the
built-in enhancer take instead of resampling the face's box again."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.core.face_records import Face, FacePatch
from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.core.resample import shrink
from engine.core.settings import EngineSettings, SwapSettings
from engine.render.composite import composite
from engine.stages.composite import CompositeStage
from engine.swap.library import SourceLibrary
from tests.engine.swap.support import EILEEN, GRACE, analyzer, swap_frame


def test_the_renderers_sample_is_the_frame_under_its_patch(
    tmp_path: Path,
) -> None:
    library = SourceLibrary(analyzer(), cache_dir=tmp_path)
    settings = EngineSettings(swap=SwapSettings(source_key=library.load_identity([GRACE]).key))
    frame = read_image(EILEEN)
    packet = swap_frame(library, settings, frame)
    patch = packet.faces[0].patch
    assert patch is not None and patch.input_sample is not None
    np.testing.assert_array_equal(patch.input_in_patch(frame), patch.frame_in_patch(frame))


def _patch(frame: np.ndarray, x0: int, y0: int, size: int, value: float) -> FacePatch:
    """A flat square face over a `2·size` box of `frame`, rendered at half resolution,
    carrying its sample of the input frame as the renderer's does."""
    yy, xx = np.mgrid[:size, :size]
    mask = (((yy - size / 2) ** 2 + (xx - size / 2) ** 2) < (0.45 * size) ** 2).astype(np.float32)
    box = frame[y0 : y0 + 2 * size, x0 : x0 + 2 * size]
    return FacePatch(
        x0=x0,
        y0=y0,
        image=np.full((size, size, 3), value, np.float32),
        mask=mask,
        scale_px=size / 2,
        frame_size=(2 * size, 2 * size),
        input_sample=shrink(box, (size, size)),
    )


def test_a_patch_over_one_already_blended_resamples_the_frame() -> None:
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 255, (200, 260, 3), dtype=np.uint8)
    frame.flags.writeable = False
    first, second = _patch(frame, 20, 30, 60, 250.0), _patch(frame, 70, 40, 60, 10.0)
    expected = np.array(frame, copy=True)
    for patch in (first, second):  # no sample taken: the frame resampled each time
        composite(expected, patch, EngineSettings().compositor)
    packet = FramePacket(0, 0, frame, faces=[Face(0, patch=first), Face(1, patch=second)])
    out = CompositeStage().process(packet, EngineSettings()).output
    assert out is not None
    np.testing.assert_array_equal(out, expected)
    # The second's sample is stale where the first was blended in: used there, it shows.
    stale = np.array(frame, copy=True)
    composite(stale, first, EngineSettings().compositor, untouched=True)
    composite(stale, second, EngineSettings().compositor, untouched=True)
    assert np.abs(stale.astype(int) - expected).max() > 10
