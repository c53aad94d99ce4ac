"""Menu items show their own keys (none for items without one), checked items and boxes
draw a tick, and the About box names the version."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox

from app import __version__
from app.gui.launch import ICON_DIR, STYLE_FILE, apply_style
from app.gui.menus import _about, _keys_for


def _menu(window, title: str):  # type: ignore[no-untyped-def]
    return next(a.menu() for a in window.menuBar().actions() if a.text() == title)


def test_file_menu_items_show_only_their_own_keys(make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(start=False)
    texts = [a.text() for a in _menu(window, "&File").actions() if a.text()]
    keyed = {t.split("\t")[0]: t.split("\t")[1] for t in texts if "\t" in t}
    assert keyed == {"Add face photos…": "Ctrl+O"}  # none says "Space"
    assert _keys_for("") == ""
    assert _keys_for("toggle_stream") == "L"


def test_the_about_box_names_the_version() -> None:
    assert f"Fusecam {__version__}" in _about()


def test_checked_boxes_and_menu_items_draw_a_tick(qapp) -> None:  # type: ignore[no-untyped-def]
    style = STYLE_FILE.read_text(encoding="utf-8")
    assert "QCheckBox::indicator:checked" in style and "QMenu::indicator:checked" in style
    assert style.count('url("@ICONS@/check.png")') == 2
    for name in ("check.png", "check@2x.png"):
        assert (ICON_DIR / name).is_file()
    before = qapp.styleSheet()
    try:
        apply_style(qapp)
        loaded = qapp.styleSheet()
        assert "@ICONS@" not in loaded
        assert f'url("{Path(ICON_DIR).as_posix()}/check.png")' in loaded
        white = {}
        for checked in (False, True):
            box = QCheckBox("x")
            box.setChecked(checked)
            box.resize(box.sizeHint())
            image = box.grab().toImage()
            white[checked] = sum(
                QColor(image.pixel(x, y)).lightness() > 220
                for x in range(min(20, image.width()))
                for y in range(image.height())
            )
        assert white[True] > 10 and white[False] == 0, white  # the tick, drawn
    finally:
        qapp.setStyleSheet(before)
