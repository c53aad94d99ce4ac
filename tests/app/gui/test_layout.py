"""The preview dominates at 1024×640: compact, movable HUD; closable control panel;
a gallery whose height (and tile size) follows the splitter; all remembered."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRectF, Qt

from app.gui import layout_state
from app.gui.layout_state import GuiState
from engine.sources import DemoSource

SMALL_WINDOW = (1024, 640)
HD = (1280, 720)


def _picture(window) -> QRectF:  # type: ignore[no-untyped-def]
    """The preview's picture, in window coordinates."""
    rect = window.preview.target_rect()
    top_left = window.preview.mapTo(window, QPoint(int(rect.left()), int(rect.top())))
    return QRectF(top_left.x(), top_left.y(), rect.width(), rect.height())


def _hud(window) -> QRectF:  # type: ignore[no-untyped-def]
    top_left = window.hud.mapTo(window, QPoint(0, 0))
    return QRectF(top_left.x(), top_left.y(), window.hud.width(), window.hud.height())


def test_the_preview_dominates_a_small_window(qtbot, make_window, wait_ready) -> None:
    window = make_window(source=DemoSource(size=HD))
    window.resize(*SMALL_WINDOW)
    wait_ready(window)
    qtbot.waitUntil(lambda: window.hud.updates > 2, timeout=5000)
    picture = _picture(window)
    area = picture.width() * picture.height() / (SMALL_WINDOW[0] * SMALL_WINDOW[1])
    # The screenshot that filed this: a 630×350 picture, a third of the window.
    assert picture.width() >= 660 and area >= 0.40, (picture, area, window.messages.texts())
    # The HUD is one compact line in a corner, clear of the middle where a head is.
    assert window.hud.compact and window.hud.height() <= 60
    middle = QRectF(
        picture.left() + picture.width() / 4,
        picture.top() + picture.height() / 5,
        picture.width() / 2,
        picture.height() * 3 / 5,
    )
    assert not _hud(window).intersects(middle)
    assert picture.contains(_hud(window))


def test_a_big_window_shows_the_full_hud(qtbot, make_window, wait_ready) -> None:
    window = make_window(source=DemoSource(size=HD))
    window.resize(1920, 1080)
    wait_ready(window)
    qtbot.waitUntil(lambda: len(window.hud.data.stages) > 4, timeout=10000)
    assert not window.hud.compact and window.hud.height() > 100


def test_the_hud_moves_to_the_corner_it_is_dragged_to(qtbot, make_window, wait_ready) -> None:
    window = make_window(source=DemoSource(size=HD))
    window.resize(*SMALL_WINDOW)
    wait_ready(window)
    picture = _picture(window)
    start = QPoint(10, 10)
    qtbot.mousePress(window.hud, Qt.MouseButton.LeftButton, pos=start)
    target = window.hud.mapFromGlobal(
        window.mapToGlobal(QPoint(int(picture.right() - 60), int(picture.bottom() - 30)))
    )
    qtbot.mouseMove(window.hud, target)
    qtbot.mouseRelease(window.hud, Qt.MouseButton.LeftButton, pos=target)
    assert window.hud.corner == "bottom-right"
    hud = _hud(window)
    assert hud.right() <= picture.right() and hud.right() > picture.center().x()
    assert hud.bottom() <= picture.bottom() and hud.top() > picture.center().y()
    # A double-click switches to the full card, and both choices are saved.
    qtbot.mouseDClick(window.hud, Qt.MouseButton.LeftButton)
    assert window.hud.size_mode == "full" and not window.hud.compact
    state = window.keeper.current_state()
    assert (state.layout.hud_corner, state.layout.hud_size) == ("bottom-right", "full")


def test_the_control_panel_hides_and_the_preview_grows(qtbot, make_window, wait_ready) -> None:
    window = make_window(source=DemoSource(size=HD))
    window.resize(*SMALL_WINDOW)
    wait_ready(window)
    before = window.preview.width()
    window.commands.toggle_controls()  # C
    qtbot.waitUntil(lambda: window.preview.width() > before + 250, timeout=5000)
    assert not window.dock.isVisible()
    assert window.keeper.current_state().layout.controls_visible is False
    window.commands.toggle_controls()
    assert window.dock.isVisible()


def test_outputs_and_models_are_one_click_away(make_window) -> None:
    """No scrolling to reach them: they are tabs of the control panel."""
    window = make_window(start=False)
    tabs = window.controls.tabs
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    assert titles == ["Swap", "Outputs", "Input", "Models"]
    tabs.setCurrentIndex(1)
    assert window.outputs_panel.isVisible()


def test_the_gallery_follows_the_splitter(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    window.resize(*SMALL_WINDOW)
    wait_ready(window)
    splitter = window.ui.splitter
    total = sum(splitter.sizes())
    assert splitter.sizes()[1] <= 236
    big = window.gallery_panel.tile_px
    splitter.moveSplitter(total - 130, 1)  # a low gallery: smaller tiles
    qtbot.waitUntil(lambda: window.gallery_panel.tile_px < big, timeout=3000)
    small = window.gallery_panel.tile_px
    tile = window.gallery_panel.tiles()[0]
    assert tile.image.width() == small and tile.width() == small + 16
    assert window.keeper.current_state().layout.gallery_height == splitter.sizes()[1]


def test_layout_choices_survive_a_restart(qtbot, make_window, wait_ready) -> None:
    first = make_window()
    wait_ready(first)
    first.hud.set_corner("top-right")
    first.hud.moved.emit("top-right")
    first.commands.set_hud_size("compact")
    first.commands.toggle_controls()
    first.close()
    state = layout_state.load().state
    assert (state.layout.hud_corner, state.layout.hud_size, state.layout.controls_visible) == (
        "top-right",
        "compact",
        False,
    )
    second = make_window(state=state)
    assert second.hud.corner == "top-right" and second.hud.size_mode == "compact"
    assert not second.dock.isVisible()


def test_a_fresh_state_is_valid() -> None:
    state = GuiState()
    assert (
        state.layout.hud_size == "auto" and state.layout.controls_visible and state.outputs_on == ()
    )
