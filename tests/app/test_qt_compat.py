"""The None-refcount guard for PySide6 builds that leak references to None."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from app.qt_compat import HEADROOM, guard_none_refcount, none_leak_per_call


def test_no_void_qt_call_can_exhaust_none() -> None:
    guard_none_refcount()
    leak = none_leak_per_call()
    if leak > 0 and sys.version_info < (3, 12):
        # A leaking build: the guard must have given None its headroom.
        assert sys.getrefcount(None) > HEADROOM // 2
    assert guard_none_refcount() is (leak > 0 and sys.version_info < (3, 12))


def test_a_long_paint_loop_survives() -> None:
    # Far more void calls than None has references in a fresh interpreter: without the
    # guard a leaking PySide6 aborts this process ("none_dealloc").
    code = textwrap.dedent("""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
        app = QGuiApplication([])
        from app.qt_compat import guard_none_refcount
        guard_none_refcount()
        image = QImage(8, 8, QImage.Format.Format_RGB888)
        painter = QPainter(image)
        for _ in range(200_000):
            painter.setPen(QColor(1, 2, 3))
        painter.end()
        print("ok")
    """)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-500:]
