"""GUI tests run headless (offscreen Qt) with a real engine and small demo frames."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Camera enumeration probes /dev/video0..7; there are none here, so OpenCV would warn.
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pyvirtualcam
from pyvirtualcam.camera import BACKENDS

from app.gui.layout_state import DesktopState, GuiState
from app.gui.main_window import MainWindow
from app.gui.qt_compat import guard_none_refcount
from engine.sources import DemoSource
from engine.sources.base import FrameSource

SMALL = (320, 180)

# pytest-qt's own calls run before any window exists; protect them too (see qt_compat).
guard_none_refcount()


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Settings per test; the face cache shared by the session (loading is then fast)."""
    monkeypatch.setenv("FUSECAM_CONFIG_DIR", str(tmp_path / "config"))
    cache = tmp_path_factory.getbasetemp() / "face-cache"
    monkeypatch.setenv("FUSECAM_CACHE_DIR", str(cache))


WindowFactory = Callable[..., MainWindow]


@pytest.fixture
def make_window(qtbot) -> Iterator[WindowFactory]:  # type: ignore[no-untyped-def]
    windows: list[MainWindow] = []

    def make(
        state: GuiState | None = None,
        source: FrameSource | None = None,
        start: bool = True,
        **kwargs: object,
    ) -> MainWindow:
        kwargs.setdefault("show_notice", False)
        window = MainWindow(
            state or GuiState(desktop=DesktopState(notice_accepted=True)),
            source=source if source is not None else DemoSource(size=SMALL),
            **kwargs,  # type: ignore[arg-type]
        )
        qtbot.addWidget(window)
        window.show()
        if start:
            window.start()
        windows.append(window)
        return window

    yield make
    for window in windows:
        if window.isVisible():
            window.close()


@pytest.fixture
def wait_ready(qtbot) -> Callable[..., None]:  # type: ignore[no-untyped-def]
    """Wait until frames were shown, the stages built and every gallery face loaded."""

    def wait(window: MainWindow, frames: int = 3, timeout_ms: int = 60000) -> None:
        qtbot.waitUntil(
            lambda: (
                window.preview.frames_shown >= frames
                and window.core.stages_settled
                and window.gallery.loading == 0
            ),
            timeout=timeout_ms,
        )

    return wait


@pytest.fixture
def fake_camera() -> Iterator[list[dict[str, Any]]]:
    """A pyvirtualcam backend that records what it was opened with (no real driver runs
    in tests). Frames it gets are kept."""
    opened: list[dict[str, Any]] = []

    class Backend:
        def __init__(
            self, *, width: int, height: int, fps: float, fourcc: int, device: str | None, **kw: Any
        ) -> None:
            self._device = device or "fake0"
            self.record = {"device": device, "size": (width, height), "frames": []}
            opened.append(self.record)

        def send(self, frame: np.ndarray) -> None:
            self.record["frames"].append(frame.copy())

        def close(self) -> None:
            pass

        def device(self) -> str:
            return self._device

        def native_fourcc(self) -> None:
            return None

    name = f"fusecam-gui-{id(opened)}"
    pyvirtualcam.register_backend(name, Backend)
    try:
        yield opened
    finally:
        BACKENDS.pop(name, None)
