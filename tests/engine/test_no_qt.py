"""engine/ never imports Qt (DESIGN.md): checked in the source and at import time."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

QT_MODULES = ("PySide6", "PySide2", "PyQt5", "PyQt6", "shiboken6", "shiboken2", "qtpy")


def qt_imports(source: str, filename: str = "<source>") -> list[str]:
    """Every Qt import in `source`, including `importlib.import_module("PySide6…")`."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if called in ("import_module", "__import__") and isinstance(first, ast.Constant):
                names = [str(first.value)]
        found += [f"{filename}:{node.lineno}: {n}" for n in names if n.split(".")[0] in QT_MODULES]
    return found


def test_the_checker_catches_qt_imports() -> None:
    assert qt_imports("import PySide6.QtCore")
    assert qt_imports("from PySide6 import QtWidgets")
    assert qt_imports("from PyQt5.QtGui import QImage")
    assert qt_imports("import importlib\nimportlib.import_module('shiboken6')")
    assert qt_imports("def f():\n    import PySide6\n")  # lazy imports count too
    assert not qt_imports("import numpy\nfrom engine.core.slots import LatestSlot")


def test_no_engine_module_imports_qt(repo_root: Path) -> None:
    files = sorted((repo_root / "engine").rglob("*.py"))
    assert len(files) > 10, "engine sources not found"
    offenders = []
    for path in files:
        offenders += qt_imports(path.read_text(encoding="utf-8"), str(path.relative_to(repo_root)))
    assert offenders == []


PROBE = """
import importlib, json, pkgutil, sys
import engine
names = sorted(m.name for m in pkgutil.walk_packages(engine.__path__, "engine."))
for name in names:
    importlib.import_module(name)
qt = sorted(m for m in sys.modules if m.split(".")[0] in {qt!r})
print(json.dumps({{"modules": names, "qt": qt}}))
"""


def test_importing_every_engine_module_loads_no_qt(repo_root: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(qt=set(QT_MODULES))],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert (
        "engine.runtime.pipeline" in report["modules"]
        and "engine.sources.demo" in report["modules"]
    )
    assert report["qt"] == []
