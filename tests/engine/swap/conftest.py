"""Fixtures shared by the swap's tests."""

from __future__ import annotations

import pytest

from engine.swap.library import SourceLibrary
from tests.engine.swap.support import analyzer


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> SourceLibrary:
    """A source library of its own for each test module, with a fresh cache (so no
    module reads an identity another built), on the shared ONNX sessions."""
    return SourceLibrary(analyzer(), cache_dir=tmp_path_factory.mktemp("cache"))
