"""Live mini-previews on the gallery tiles, rendered by one low-priority background thread."""

from __future__ import annotations

import sys
import threading

import numpy as np
from PySide6.QtGui import QImage

from engine.models import ModelStore
from engine.neural.signature import register_user_model
from tests.engine.neural_fakes import make_arcface, make_inswapper


def _pixels(label) -> np.ndarray:  # type: ignore[no-untyped-def]
    image = label.pixmap().toImage().convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 3].copy()


def test_tiles_show_the_photo_and_a_live_swapped_preview(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    tiles = window.gallery_panel.tiles()
    renderer = window.renderer
    qtbot.waitUntil(lambda: set(renderer.keys) == {t.key for t in tiles}, timeout=5000)
    photos = [_pixels(t.image) for t in tiles]
    # Each tile's inset is refreshed again and again from the moving demo camera...
    qtbot.waitUntil(lambda: all(t.previews_shown >= 3 for t in tiles), timeout=30000)
    first = [_pixels(t.live) for t in tiles]
    qtbot.waitUntil(lambda: all(t.previews_shown >= 6 for t in tiles), timeout=30000)
    for tile, photo, before in zip(tiles, photos, first, strict=True):
        assert tile.live.isVisible()
        now = _pixels(tile.live)
        assert now.shape != before.shape or np.abs(now.astype(int) - before).mean() > 1
        # ...while the tile itself keeps showing who the face is: the source photo.
        assert np.array_equal(_pixels(tile.image), photo)
    assert renderer.alive and renderer.errors == {}
    assert renderer.name in {t.name for t in threading.enumerate()}
    if sys.platform.startswith("linux"):
        assert renderer.low_priority
    # The duty-cycle cap holds by construction: rest >= render time * (1 - duty) / duty.
    assert renderer.renders >= 2 * len(tiles)


def test_hidden_tiles_are_not_rendered(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    qtbot.waitUntil(lambda: len(window.renderer.keys) == 2, timeout=5000)
    window.gallery_panel.hide()
    assert window.renderer.keys == ()


def test_renderer_backs_off_while_the_engine_drops_frames(make_window) -> None:
    renderer = make_window(start=False).renderer
    assert renderer.backoff_s == 0.0
    for _ in range(10):
        renderer._adapt(engine_dropped=True)
    assert renderer.backoff_s == renderer.max_backoff_s
    for _ in range(10):
        renderer._adapt(engine_dropped=False)
    assert renderer.backoff_s == 0.0


def test_previews_follow_the_neural_swapper_once_it_runs(
    qtbot, make_window, wait_ready, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Under a neural swapper the tiles show that model's swap, not the built-in render
    (whose own controls are disabled then); back on the built-in one, they follow it."""
    monkeypatch.setenv("FUSECAM_DATA_DIR", str(tmp_path / "data"))
    swapper = register_user_model(ModelStore(), make_inswapper(tmp_path / "swap.onnx"), "inswapper")
    arcface = register_user_model(ModelStore(), make_arcface(tmp_path / "arc.onnx"), "arcface")
    window = make_window()
    wait_ready(window)
    renderer = window.renderer
    qtbot.waitUntil(lambda: renderer.renders >= 2, timeout=30000)
    assert renderer.swapper_preview is not None
    assert renderer.swapper_preview.last_kind == "builtin"
    core = window.core
    assert core.apply("models.recognition_model", arcface.name)
    assert core.apply("models.swapper_model", swapper.name)
    assert core.apply("swap.swapper", "inswapper")
    qtbot.waitUntil(lambda: renderer.swapper_preview.last_kind == "neural", timeout=60000)
    shown = renderer.renders
    qtbot.waitUntil(lambda: renderer.renders >= shown + 2, timeout=30000)
    assert renderer.errors == {}
    assert renderer.swapper_preview.last_kind == "neural"
    assert core.apply("swap.swapper", "builtin")
    qtbot.waitUntil(lambda: renderer.swapper_preview.last_kind == "builtin", timeout=30000)
