"""docs/architecture.md's import picture is the code's: redrawn from the imports and
compared, so a new dependency between packages shows up in the map or fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from tests.conftest import REPO_ROOT


def _tool() -> ModuleType:
    path = REPO_ROOT / "tools" / "import_graph.py"
    spec = importlib.util.spec_from_file_location("import_graph", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_architecture_picture_matches_the_imports() -> None:
    tool = _tool()
    doc: Path = tool.DOC
    drawn = tool.diagram()
    assert "engine_stages --> engine_swap" in drawn  # the tool really read the imports
    assert tool.embedded(doc.read_text(encoding="utf-8")) == drawn, (
        "docs/architecture.md is out of date: run .venv/bin/python tools/import_graph.py --write"
    )


def test_the_reduction_keeps_only_edges_no_longer_path_implies() -> None:
    reduce = _tool().reduce
    edges = {("engine.a", "engine.b"), ("engine.b", "engine.c"), ("engine.a", "engine.c")}
    assert reduce(edges) == {("engine.a", "engine.b"), ("engine.b", "engine.c")}
    # A path through a front-end does not imply an edge (the CLI starting the GUI).
    app = {("app.cli", "app.gui"), ("app.gui", "engine.x"), ("app.cli", "engine.x")}
    assert reduce(app) == app
