"""Starts the desktop app: saved state, main window, optional screenshot-and-quit."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app.gui.display import has_display
from app.gui.i18n import install_translator
from app.gui.layout_state import load as load_state
from app.gui.main_window import MainWindow
from app.gui.window_fit import DESIGN_SIZE
from app.logs import Diagnostics
from engine.sources.base import FrameSource

log = logging.getLogger(__name__)

GUI_RESOURCES = Path(__file__).resolve().parent / "resources"  # shipped as package data
STYLE_FILE = GUI_RESOURCES / "style" / "fusecam.qss"
ICON_DIR = GUI_RESOURCES / "icons"  # fusecam.svg rendered by tools/render_icon.py
SCREENSHOT_MIN_FRAMES = 5
SCREENSHOT_MAX_WAIT_MS = 20000


def apply_style(app: QApplication) -> None:
    try:
        # Images in the style sheet by absolute path: wherever the package is installed.
        style = STYLE_FILE.read_text(encoding="utf-8").replace("@ICONS@", ICON_DIR.as_posix())
        app.setStyleSheet(style)
    except OSError as exc:
        log.warning("style sheet %s not loaded: %s", STYLE_FILE, exc)


def app_icon() -> QIcon:
    icon = QIcon()
    for png in sorted(ICON_DIR.glob("fusecam-*.png")):
        icon.addFile(str(png))
    return icon


def launch(
    args: argparse.Namespace,
    source: FrameSource | None = None,
    diagnostics: Diagnostics | None = None,
) -> int:
    """The desktop app, from the saved settings (defaults on first launch); `source`: the
    input the command line asked for, or None for the saved choice; `diagnostics`: where
    crash reports go (the window says so when one is written)."""
    screenshot: Path | None = args.screenshot
    screenless = not has_display()
    if screenless:
        # A screenshot needs no screen: render offscreen (read when QApplication starts).
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Fusecam")
    app.setDesktopFileName("fusecam")  # Wayland/X11: matches packaging/fusecam.desktop
    app.setWindowIcon(app_icon())
    apply_style(app)
    loaded = load_state()
    # Kept referenced until the app ends (Qt does not own it).
    translator = install_translator(app, loaded.state.desktop.language or None)
    window = MainWindow(
        loaded.state,
        source=source,
        source_faces=args.source or (),
        # A screenshot run is for docs and checks: it neither blocks on the first-launch
        # notice nor changes the user's saved settings.
        persist=screenshot is None,
        show_notice=screenshot is None,
        startup_messages=loaded.messages,
    )
    if screenless:
        window.resize(DESIGN_SIZE)  # no screen to fit: the picture docs and CI expect
    if diagnostics is not None:
        diagnostics.keep_secret(loaded.state.stream_token)
        window.status.watch_crashes(diagnostics)
    window.show()
    window.start()
    if screenshot is not None:
        schedule_screenshot(window, screenshot, args.quit_after_ms)
    elif args.quit_after_ms is not None:
        QTimer.singleShot(args.quit_after_ms, window.close)
    code = app.exec()
    del translator
    if screenshot is not None and not screenshot.is_file():
        print(f"fusecam: error: the screenshot {screenshot} was not written", file=sys.stderr)
        return 1
    return int(code)


def schedule_screenshot(window: MainWindow, path: Path, quit_after_ms: int | None) -> None:
    """Shoot once `quit_after_ms` passed *and* frames arrived, the faces finished loading
    and the stages are built (or a hard cap passed), so the picture shows the real
    window, not a blank one."""
    earliest = time.monotonic() + (quit_after_ms or 2000) / 1000
    deadline = earliest + SCREENSHOT_MAX_WAIT_MS / 1000

    def ready() -> bool:
        return (
            window.preview.frames_shown >= SCREENSHOT_MIN_FRAMES
            and window.gallery.loading == 0
            and window.core.stages_settled
        )

    def poll() -> None:
        now = time.monotonic()
        if now >= deadline or (now >= earliest and ready()):
            if not ready():
                log.warning("screenshot taken before the window was fully ready")
            if window.save_screenshot(path):
                print(f"fusecam: wrote {path}", file=sys.stderr)
            window.close()
        else:
            QTimer.singleShot(100, poll)

    QTimer.singleShot(100, poll)
