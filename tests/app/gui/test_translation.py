"""The translation path works end to end: every string the window shows is in the
shipped German file, translated, compiled, and the window speaks German with it."""

from __future__ import annotations

import importlib.util
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QApplication

from app.gui.i18n import I18N_DIR, install_translator, tr
from tests.conftest import REPO_ROOT

SHIPPED = I18N_DIR / "fusecam_de.ts"


def _tool() -> ModuleType:
    path = REPO_ROOT / "tools" / "update_translations.py"
    spec = importlib.util.spec_from_file_location("update_translations", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _messages(ts: Path) -> dict[str, tuple[str, str]]:
    """source → (translation, its type: "" when finished)."""
    found = {}
    for message in ET.parse(ts).iter("message"):
        source = message.findtext("source") or ""
        translation = message.find("translation")
        assert translation is not None
        found[source] = (translation.text or "", translation.get("type", ""))
    return found


def test_the_shipped_translation_is_complete_and_current(tmp_path: Path) -> None:
    tool = _tool()
    fresh = tmp_path / "fusecam_de.ts"
    shutil.copy(SHIPPED, fresh)
    tool.lupdate(fresh, tool.sources())  # re-extract from the code as it is now
    shipped, now = _messages(SHIPPED), _messages(fresh)
    assert len(now) > 250
    new = sorted(set(now) - set(shipped))
    assert new == [], f"strings not in {SHIPPED.name}: run tools/update_translations.py"
    assert set(shipped) == set(now), "strings no longer in the code: run the tool"
    unfinished = [s for s, (text, kind) in shipped.items() if kind or not text]
    assert unfinished == [], "untranslated strings"
    # Every {placeholder} the code fills is in the translation too.
    for source, (text, _) in shipped.items():
        assert set(re.findall(r"\{[^}]*\}", source)) == set(re.findall(r"\{[^}]*\}", text))
    qm = tmp_path / "fusecam_de.qm"
    tool.lrelease(SHIPPED, qm)
    assert qm.read_bytes() == SHIPPED.with_suffix(".qm").read_bytes(), "stale .qm"


@pytest.fixture
def german(qapp: QApplication) -> Iterator[QTranslator]:
    translator = install_translator(qapp, "de")
    assert translator is not None, "the German .qm did not load"
    yield translator
    qapp.removeTranslator(translator)


def test_the_window_speaks_german(german, make_window) -> None:  # type: ignore[no-untyped-def]
    assert tr("Outputs") == "Ausgänge"
    window = make_window(start=False)
    tabs = window.controls.tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == [
        "Tausch",
        "Ausgänge",
        "Eingang",
        "Modelle",
    ]
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus[:2] == ["&Datei", "&Ansicht"]
    assert window.outputs_panel.buttons["record"].text() == "Aufnehmen (R)"
    assert window.controls.bindings["swap.enabled"].widget.text() == "Gesichter tauschen (S)"
    assert window.preview.accessibleName() == "Vorschau"


def test_a_language_not_shipped_stays_english(qapp: QApplication) -> None:
    assert install_translator(qapp, "fr") is None
    assert tr("Outputs") == "Outputs"
