"""The None-refcount guard for PySide6 builds that leak references to None."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from app.gui.qt_compat import HEADROOM, guard_none_refcount, none_leak_per_call, true_leak_per_emit


def test_no_qt_call_can_exhaust_none_or_true() -> None:
    guard_none_refcount()
    leaks = none_leak_per_call() > 0 or true_leak_per_emit() > 0
    if leaks and sys.version_info < (3, 12):
        # A leaking build: the guard must have given None, True and False headroom.
        for obj in (None, True, False):
            assert sys.getrefcount(obj) > HEADROOM // 2
    assert guard_none_refcount() is (leaks and sys.version_info < (3, 12))


def test_a_long_paint_loop_survives() -> None:
    # Far more calls than None and True have references in a fresh interpreter: without
    # the guard a leaking PySide6 aborts this process ("none_dealloc", "bool_dealloc").
    code = textwrap.dedent("""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtCore import QObject, Signal
        from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
        app = QGuiApplication([])

        class Ticker(QObject):
            tick = Signal(int)

        ticker = Ticker()
        ticker.tick.connect(lambda n: None)
        from app.gui.qt_compat import guard_none_refcount
        guard_none_refcount()
        image = QImage(8, 8, QImage.Format.Format_RGB888)
        painter = QPainter(image)
        for n in range(200_000):
            painter.setPen(QColor(1, 2, 3))  # a void call: leaks None on a bad build
            ticker.tick.emit(n)  # emit() leaks True on a bad build
        painter.end()
        print("ok")
    """)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-500:]
