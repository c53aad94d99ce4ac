"""Guards against a PySide6 bug that would crash a long-running window on Python 3.11.

PySide6 6.12.0 returns `None` from every void method (`QWidget.update`, `QLabel.setText`,
`QPainter.setPen`, …) and `True` from `Signal.emit()` without taking a reference to them.
Python 3.12+ ignores that (these objects are immortal there, PEP 683); on 3.11 each call
lowers the count by one, and after some tens of thousands of calls — minutes of live
preview — the interpreter aborts ("none_dealloc: deallocating None", or "bool_dealloc").
6.11.3 does not have the bug.

`guard_none_refcount()` measures the leaks once at start-up and, only when one is
present, gives None, True and False a reference count no leak can exhaust — what 3.12
does for every interpreter. The real fix is a PySide6 without the bug (pyproject.toml).
"""

from __future__ import annotations

import ctypes
import logging
import sys

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)

PROBE_CALLS = 64
# ~10^15: at a million leaked references a second this lasts some thirty years.
HEADROOM = 1 << 50


class _Probe(QObject):
    fired = Signal()


def none_leak_per_call() -> float:
    """References to None lost per void PySide6 call (0 on a correct build)."""
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(PROBE_CALLS):
        probe.setObjectName("probe")
    return (before - sys.getrefcount(None)) / PROBE_CALLS


def true_leak_per_emit() -> float:
    """References to True lost per `Signal.emit()` (0 on a correct build)."""
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(PROBE_CALLS):
        probe.fired.emit()
    return (before - sys.getrefcount(True)) / PROBE_CALLS


def guard_none_refcount() -> bool:
    """True when the leak was found and None was made effectively immortal."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    # CPython 3.11 PyObject starts with Py_ssize_t ob_refcnt (release builds).
    counts = [ctypes.c_ssize_t.from_address(id(obj)) for obj in (None, True, False)]
    if counts[0].value > HEADROOM // 2:
        return True  # already applied
    if none_leak_per_call() < 0.5 and true_leak_per_emit() < 0.5:
        return False
    for count in counts:
        count.value += HEADROOM
    log.warning(
        "PySide6 %s leaks references to None and True on Python %d.%d (a bug of that "
        "release); applied a workaround. Installing PySide6 6.11 avoids it.",
        pyside_version,
        *sys.version_info[:2],
    )
    return True
