"""Screenshots of the real window at the sizes people use, for a human to look at.

They go to $FUSECAM_SCREENSHOT_DIR when set (docs, reviews), else to the test's own
temporary folder. Each must show live frames in a preview that dominates the window.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from app.gui.launch import apply_style
from engine.sources import DemoSource

SIZES = ((1024, 640), (1280, 800), (1920, 1080))


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 3]


@pytest.fixture
def styled(qapp: QApplication) -> Iterator[None]:
    """The app's own style sheet, as users see it (other tests run unstyled)."""
    apply_style(qapp)
    yield
    qapp.setStyleSheet("")


@pytest.mark.usefixtures("styled")
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_window_screenshot(qtbot, make_window, wait_ready, tmp_path: Path, size) -> None:  # type: ignore[no-untyped-def]
    folder = Path(os.environ.get("FUSECAM_SCREENSHOT_DIR") or tmp_path)
    window = make_window(source=DemoSource(size=(1280, 720)))
    window.resize(*size)
    wait_ready(window)
    qtbot.waitUntil(lambda: window.hud.updates > 3 and window.hud.data.fps > 0, timeout=10000)
    shown = window.preview.frames_shown
    qtbot.waitUntil(lambda: window.preview.frames_shown > shown + 3, timeout=10000)
    path = folder / f"fusecam-{size[0]}x{size[1]}.png"
    assert window.save_screenshot(path)
    image = QImage(str(path))
    assert (image.width(), image.height()) == size
    rect = window.preview.target_rect()
    origin = window.preview.mapTo(window, window.preview.rect().topLeft())
    x0, y0 = origin.x() + int(rect.left()), origin.y() + int(rect.top())
    picture = _pixels(image)[y0 : y0 + int(rect.height()), x0 : x0 + int(rect.width())]
    assert picture.std() > 20, "the preview shows no picture"
    assert rect.width() * rect.height() >= 0.4 * size[0] * size[1]
