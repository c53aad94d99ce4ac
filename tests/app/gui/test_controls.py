"""Every control reaches the engine; inputs switch live; settings survive a restart."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QSlider, QSpinBox

from app.gui import layout_state
from app.gui.layout_state import DesktopState, GuiState
from engine.core.paths import DEMO_PORTRAIT
from engine.core.settings import EngineSettings
from engine.core.settings_paths import get_path
from engine.persist import settings_store
from engine.sources.choice import InputChoice


def _change(widget, current):  # type: ignore[no-untyped-def]
    """Operate a real widget to a value other than the current one; the expected value."""
    if isinstance(widget, QCheckBox):
        widget.click()
        return not current
    if isinstance(widget, QSlider):
        target = widget.minimum() if widget.value() != widget.minimum() else widget.maximum()
        widget.setValue(target)
        return None  # scale depends on the control: checked as "changed" below
    if isinstance(widget, QSpinBox):
        target = widget.minimum() if widget.value() != widget.minimum() else widget.maximum()
        widget.setValue(target)
        return target
    assert isinstance(widget, QComboBox)
    index = (widget.currentIndex() + 1) % widget.count()
    widget.setCurrentIndex(index)
    return widget.itemData(index)


def test_every_control_reaches_the_engine_settings(make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    engine = window.core.engine
    bindings = window.controls.bindings
    # The settings a streamer needs are all there.
    for path in (
        "swap.blend",
        "swap.latent_blend",
        "swap.enabled",
        "swap.face_selection",
        "swap.keep_mouth_interior",
        "enhancer.mode",
        "output.mirror",
        "output.synthetic_label",
    ):
        assert path in bindings
    for path in (
        "output.on_face_lost",
        "output.hold_ms",
        "models.enhancer_model",
    ):
        assert path in bindings
    for path, binding in bindings.items():
        if isinstance(binding.widget, QComboBox) and binding.widget.count() < 2:
            continue  # nothing to choose yet (no neural enhancer registered here)
        before = get_path(engine.settings, path)
        expected = _change(binding.widget, before)
        after = get_path(engine.settings, path)
        assert after != before, f"{path}: the control did not reach the engine"
        if expected is not None:
            assert after == expected, path


def test_each_swappers_slider_sets_its_own_blend(make_window) -> None:
    window = make_window()
    blend = window.controls.bindings["swap.blend"].widget
    latent = window.controls.bindings["swap.latent_blend"].widget
    assert isinstance(blend, QSlider) and isinstance(latent, QSlider)
    blend.setValue(35)
    latent.setValue(70)
    swap = window.core.engine.settings.swap
    assert (swap.blend, swap.latent_blend) == (0.35, 0.7)


def test_only_the_active_swappers_controls_apply(qtbot, make_window) -> None:
    window = make_window()
    controls = window.controls
    # The built-in swapper's own controls: none of them changes a neural swap.
    builtin_only = {
        "swap.shape_alpha": controls.face_shape,
        "swap.likeness": controls.likeness,
        "swap.eyes": controls.eyes,
        "compositor.color_match": controls.color_match,
        "swap.keep_source_beard": controls.source_beard,
    }
    own_tips = {path: widget.toolTip() for path, widget in builtin_only.items()}
    assert own_tips["swap.likeness"] and own_tips["swap.eyes"]  # restored below
    # Built-in: its blend and its own controls; the neural swapper's mix is hidden.
    assert not controls.blend.isHidden() and controls.latent_blend.isHidden()
    assert all(widget.isEnabled() for widget in builtin_only.values())
    window.core.apply("swap.swapper", "inswapper")
    assert controls.blend.isHidden() and not controls.latent_blend.isHidden()
    for path, widget in builtin_only.items():
        assert not widget.isEnabled(), path
        assert widget.toolTip().startswith("Built-in swapper only: "), path
    # Disabled for real: a click on a check box changes nothing.
    match = window.core.engine.settings.compositor.color_match
    qtbot.mouseClick(controls.color_match, Qt.MouseButton.LeftButton)
    assert window.core.engine.settings.compositor.color_match == match
    window.core.apply("swap.swapper", "builtin")
    assert not controls.blend.isHidden() and controls.latent_blend.isHidden()
    for path, widget in builtin_only.items():
        assert widget.isEnabled() and widget.toolTip() == own_tips[path], path


def test_switching_the_input_keeps_the_app_running(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    old = window.core.session.source
    window.controls.input_changed.emit(
        InputChoice(kind="file", path=str(DEMO_PORTRAIT), width=320, height=180)
    )
    qtbot.waitUntil(lambda: window.core.session.source is not old, timeout=10000)
    assert not old.alive and window.core.session.source.kind == "image"
    shown = window.preview.frames_shown
    qtbot.waitUntil(lambda: window.preview.frames_shown > shown + 2, timeout=10000)
    assert "image" in window.source_label.text()


def test_a_camera_that_cannot_open_says_what_to_do(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    demo = window.core.session.source
    # There is no camera 7 on the test machine (nor, here, any camera at all).
    window.controls.input_changed.emit(InputChoice(kind="camera", device=7))
    qtbot.waitUntil(lambda: any("camera 7" in t for t in window.messages.texts()), timeout=15000)
    text = next(t for t in window.messages.texts() if "camera 7" in t)
    assert "pick another camera" in text.lower() or "close other apps" in text.lower()
    # The stream keeps running on the previous input.
    assert window.core.session.source is demo and demo.alive
    shown = window.preview.frames_shown
    qtbot.waitUntil(lambda: window.preview.frames_shown > shown + 2, timeout=10000)
    assert window.controls.input_combo.currentText().startswith("Demo")


def test_settings_round_trip_through_a_restart(qtbot, make_window, wait_ready) -> None:
    first = make_window(state=GuiState(desktop=DesktopState(notice_accepted=True)))
    wait_ready(first)
    tiles = first.gallery_panel.tiles()
    qtbot.mouseClick(tiles[1], Qt.MouseButton.LeftButton)
    first.core.apply("swap.blend", 0.6)
    first.core.apply("output.mirror", True)
    first.core.apply("enhancer.mode", "builtin")
    demo = InputChoice(kind="demo", width=640, height=480)
    first.controls.input_changed.emit(demo)
    qtbot.waitUntil(lambda: first.core.choice == demo, timeout=10000)  # switched, reported
    expected: EngineSettings = first.core.engine.settings
    first.close()
    path = settings_store.settings_path()
    assert path.is_file()

    loaded = layout_state.load()
    assert loaded.messages == ()
    assert loaded.state.input == InputChoice(kind="demo", width=640, height=480)
    second = make_window(state=loaded.state)
    wait_ready(second)
    qtbot.waitUntil(lambda: second.core.engine.settings.swap.source_key is not None)
    assert second.core.engine.settings == expected
    assert second.gallery.entries() == first.gallery.entries()
    active = [t for t in second.gallery_panel.tiles() if t.property("active")]
    assert [t.key for t in active] == [tiles[1].key]
    assert second.controls.bindings["swap.blend"].widget.value() == 60


def test_corrupt_settings_show_a_message_not_a_crash(make_window) -> None:
    path = settings_store.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\x00\x01 definitely not json")
    loaded = layout_state.load()
    window = make_window(state=loaded.state, startup_messages=loaded.messages)
    assert window.core.engine.settings == EngineSettings()
    assert any("could not be read" in t for t in window.messages.texts())
    assert window.messages.isVisible()
    assert isinstance(window.keeper.state, GuiState)
