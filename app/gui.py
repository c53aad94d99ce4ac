"""Starts the desktop app: engine session, main window, optional screenshot-and-quit."""

from __future__ import annotations

import argparse
import os
import sys

from app.display import has_display
from engine.settings import EngineSettings


def launch(args: argparse.Namespace, settings: EngineSettings) -> int:
    if not has_display():
        # A screenshot needs no screen: render offscreen.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.sources import make_source

    app = QApplication.instance() or QApplication(sys.argv[:1])
    source = make_source(args)
    window = MainWindow(source, settings, source_faces=args.source or ())
    window.show()
    window.start()
    if args.screenshot is not None:
        delay = args.quit_after_ms or 2000
        QTimer.singleShot(delay, lambda: (window.save_screenshot(args.screenshot), window.close()))
    elif args.quit_after_ms is not None:
        QTimer.singleShot(args.quit_after_ms, window.close)
    code = app.exec()
    return int(code)
