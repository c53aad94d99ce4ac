"""The first window fits the screen: the real app started on offscreen Qt screens of a
small laptop (1366×768) and a small screen (1024×640), its screenshot measured; a saved
geometry from a larger screen is brought back onto the small one."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import cv2
import pytest
from PySide6.QtWidgets import QMainWindow

from app.gui.layout_state import DesktopState, GuiState, LayoutState
from engine.persist import settings_store
from tests.app.cli.test_cli import fusecam_command
from tests.conftest import REPO_ROOT

PLACED = re.compile(r"window (\d+)x(\d+) at (-?\d+),(-?\d+); screen's available area (\d+)x(\d+)")


def start_on_screen(tmp_path: Path, width: int, height: int) -> tuple[tuple[int, ...], Path]:
    """Starts the app on a `width`×`height` screen; (its log's placement, screenshot)."""
    screen = tmp_path / "screen.json"
    screen.write_text(
        json.dumps({"screens": [{"name": "test", "x": 0, "y": 0, "width": width,
                                 "height": height, "logicalDpi": 96, "dpr": 1}]})
    )  # fmt: skip
    shot = tmp_path / f"window-{width}x{height}.png"
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={screen}")
    result = subprocess.run(
        [*fusecam_command(), "-v", "--demo", "--screenshot", str(shot), "--quit-after-ms", "300"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    found = PLACED.search(result.stderr)
    assert found is not None, result.stderr[-2000:]
    return tuple(int(v) for v in found.groups()), shot


@pytest.mark.parametrize("size", [(1366, 768), (1024, 640)])
def test_the_first_window_fits_the_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    (w, h, x, y, area_w, area_h), shot = start_on_screen(tmp_path, *size)
    assert (area_w, area_h) == size
    assert x >= 0 and y >= 0 and x + w <= area_w and y + h + 32 <= area_h  # title bar too
    # The design size where it fits, else the screen it has.
    assert (w, h) == (min(1280, area_w - 16), min(800, area_h - 40))
    picture = cv2.imread(str(shot))
    assert picture.shape[1] == w and picture.shape[0] == h  # the window as drawn


def test_a_saved_geometry_from_a_larger_screen_comes_back_on_screen(
    qapp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    big = QMainWindow()
    big.setGeometry(1500, 300, 1700, 1000)  # the right half of a 3200×1400 desktop
    saved = bytes(big.saveGeometry().toBase64().data()).decode()
    monkeypatch.setenv("FUSECAM_CONFIG_DIR", str(tmp_path / "config"))
    settings_store.save(
        GuiState(desktop=DesktopState(notice_accepted=True), layout=LayoutState(geometry=saved))
    )
    (w, h, x, y, area_w, area_h), _ = start_on_screen(tmp_path, 1024, 640)
    assert x >= 0 and x + w <= area_w and y >= 0 and y + h <= area_h
