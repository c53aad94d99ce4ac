"""A tracked target's own light and beard, measured on alternate frames and kept between
them (engine/swap/target_memory.py): what is kept is what was measured, and a face's
first frame is rendered as without a memory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from engine.core.imageio import read_image
from engine.core.settings import SwapSettings
from engine.swap import facial_hair, shading
from engine.swap.library import SourceLibrary
from engine.swap.renderer import FaceRenderer, _lookup
from engine.swap.target_memory import HAIR_SIZE, TargetLight, TargetMemory, to_texture
from tests.engine.swap.support import GRACE, analyzer, dev, fitted_face, fitter


def test_each_measure_runs_on_every_second_frame_and_never_both_after_the_first() -> None:
    memory = TargetMemory()
    assert memory.next_frame() == (True, True)  # nothing kept yet
    memory.light = TargetLight(np.ones((4, 4, 3), np.float32), np.zeros((9, 3), np.float32), 0.1)
    memory.hair = np.zeros((HAIR_SIZE, HAIR_SIZE), np.float32)
    due = [memory.next_frame() for _ in range(6)]
    assert due == [(True, False), (False, True)] * 3


def test_a_mask_gathered_into_texture_space_reads_back_as_it_was() -> None:
    """A smooth texture-space mask looked up on a turned, scaled grid (as a render sees
    it) and gathered back: the texels the grid covers match the mask; the ones it never
    reached are filled from their neighbours, within the mask's range."""
    size, texture_size = HAIR_SIZE, 512
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    mask = (0.5 + 0.5 * np.sin(xx / 9.0) * np.cos(yy / 13.0)).astype(np.float32)
    # A 240×200 grid over the texture's middle, turned 20° and stretched.
    gy, gx = np.mgrid[0:240, 0:200].astype(np.float32)
    angle = np.deg2rad(20.0)
    u = (256 + 1.3 * ((gx - 100) * np.cos(angle) - (gy - 120) * np.sin(angle))).astype(np.float32)
    v = (256 + 1.1 * ((gx - 100) * np.sin(angle) + (gy - 120) * np.cos(angle))).astype(np.float32)
    seen = _lookup(mask, (u, v), texture_size)
    coverage = np.ones(seen.shape, bool)
    kept = to_texture(seen, (u, v), coverage, texture_size)
    assert kept.shape == (size, size)
    reached = np.zeros((size, size), np.uint8)
    k = size / texture_size
    reached[
        np.rint(v * k).astype(int).clip(0, size - 1), np.rint(u * k).astype(int).clip(0, size - 1)
    ] = 1
    inner = cv2.erode(reached, np.ones((5, 5), np.uint8)).astype(bool)
    assert np.abs(kept - mask)[inner].max() < 0.03
    assert np.isfinite(kept).all() and kept.min() >= 0.0 and kept.max() <= 1.0
    # Read back on the grid, it is what the grid saw.
    assert np.abs(_lookup(kept, (u, v), texture_size) - seen).mean() < 0.01


@pytest.mark.testdata
def test_a_tracked_face_measures_light_and_beard_in_turn_and_starts_as_a_still(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On robert_downey_jr_1 (a goatee the beard step keeps), rendered four times with
    one memory: the light is measured on frames 1, 2 and 4 and the beard on 1 and 3;
    frame 1 and frame 3 (the light kept from frame 2 of the same picture, the beard
    measured) are the render without a memory to the bit; frame 2, with the beard read
    back from texture space, is within a grey level of it on average."""
    library = SourceLibrary(analyzer(), cache_dir=tmp_path)
    identity = library.load_identity([GRACE])
    frame = read_image(dev("robert_downey_jr_1.jpg"))
    face = fitted_face(frame)
    renderer = FaceRenderer(fitter())
    swap = SwapSettings()

    def counted(name: str, module: Any, calls: list[int]) -> None:
        original: Callable[..., Any] = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append(len(calls))
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    fresh = renderer.render(frame, face, identity, swap)
    assert fresh is not None
    lights: list[int] = []
    beards: list[int] = []
    counted("unwrap_lowres", shading, lights)
    counted("facial_hair", facial_hair, beards)
    memory = TargetMemory()
    patches = [renderer.render(frame, face, identity, swap, memory=memory) for _ in range(4)]
    assert len(lights) == 3 and len(beards) == 2
    assert memory.hair is not None and memory.hair.max() > 0.5  # the goatee was kept
    images = [p.image for p in patches if p is not None]
    assert len(images) == 4
    np.testing.assert_array_equal(images[0], fresh.image)
    np.testing.assert_array_equal(images[2], fresh.image)
    assert 0.0 < np.abs(images[1] - fresh.image).mean() < 1.0
