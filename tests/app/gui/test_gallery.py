"""The source gallery with the real face library: load, fail, activate, drop, remove."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from app.gui.layout_state import DesktopState, GuiState
from engine.core.paths import DEFAULT_SOURCE_FACE, DEMO_PORTRAIT
from engine.sources import ImageSource
from tests.conftest import TESTDATA_DIR

TESTDATA = TESTDATA_DIR / "faces"


def _face_box_diff(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference over the middle of the frame (where the face is)."""
    h, w = a.shape[:2]
    crop = (slice(h // 8, h // 2), slice(w // 4, 3 * w // 4))
    return float(np.abs(a[crop].astype(np.int16) - b[crop].astype(np.int16)).mean())


def test_bundled_samples_load_and_the_default_face_is_active(make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    tiles = window.gallery_panel.tiles()
    assert len(tiles) == 2
    assert all(t.state == "ready" and t.key for t in tiles)
    assert window.gallery.items()[0].paths == (DEFAULT_SOURCE_FACE,)
    assert window.core.engine.settings.swap.source_key == tiles[0].key
    assert tiles[0].property("active") and not tiles[1].property("active")
    assert [t.badge.text() for t in tiles] == ["1", "2"]


def test_switching_faces_changes_the_output_at_once(qtbot, make_window, wait_ready) -> None:
    # A still input: frames are identical, so output changes come from the face alone.
    window = make_window(source=ImageSource(DEMO_PORTRAIT, size=(360, 480)))
    wait_ready(window)
    engine = window.core.engine
    first, second = window.gallery_panel.tiles()

    def output_captured_after(t_ns: int) -> np.ndarray:
        qtbot.waitUntil(lambda: engine.published.read()[1].capture_ns > t_ns, timeout=10000)
        return np.array(engine.published.read()[1].result)

    qtbot.mouseClick(second, Qt.MouseButton.LeftButton)
    assert engine.settings.swap.source_key == second.key
    out_second = output_captured_after(time.monotonic_ns())
    qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    assert engine.settings.swap.source_key == first.key
    # The first frame captured after the click already carries the new face (the frame
    # in flight at the click may still show the old one).
    out_first = output_captured_after(time.monotonic_ns())
    original = engine.published.read()[1].frame
    # Grace Hopper on the astronaut differs from the astronaut on herself (measured 1.85
    # grey levels over the whole face box: her hair is kept off the forehead, the rest
    # of the face changes; an unchanged output scores 0).
    assert _face_box_diff(out_first, out_second) > 1.0
    assert _face_box_diff(out_first, original) > 1.0
    assert second.property("active") is False and first.property("active") is True


def test_number_keys_pick_a_face(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    tiles = window.gallery_panel.tiles()
    qtbot.keyClick(window.preview, Qt.Key.Key_2)
    assert window.core.engine.settings.swap.source_key == tiles[1].key
    qtbot.keyClick(window.preview, Qt.Key.Key_1)
    assert window.core.engine.settings.swap.source_key == tiles[0].key


def test_a_face_that_fails_says_why(qtbot, make_window, wait_ready, tmp_path: Path) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"this is not a jpeg")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 200, 3), 128, np.uint8))
    window = make_window(state=GuiState(desktop=DesktopState(notice_accepted=True), gallery=()))
    ids = window.gallery.add_files([broken, blank])
    wait_ready(window)
    tiles = {t.entry_id: t for t in window.gallery_panel.tiles()}
    unreadable, faceless = tiles[ids[0]], tiles[ids[1]]
    assert unreadable.state == faceless.state == "failed"
    assert "unreadable" in unreadable.image.text().lower()
    assert "no face" in faceless.image.text().lower()
    assert str(broken) in unreadable.toolTip()
    # Clicking a failed face explains instead of switching.
    qtbot.mouseClick(faceless, Qt.MouseButton.LeftButton)
    assert window.core.engine.settings.swap.source_key is None
    assert any("cannot be used" in t for t in window.messages.texts())


def _drop(window, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(
        QPointF(50, 50),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def test_dropping_a_folder_adds_its_faces(make_window, wait_ready, tmp_path: Path) -> None:
    folder = tmp_path / "faces"
    folder.mkdir()
    # The same photo under another name: same content, so it is reported, not duplicated.
    shutil.copy(DEFAULT_SOURCE_FACE, folder / "copy_of_grace.jpg")
    (folder / "readme.txt").write_text("not an image")
    window = make_window()
    wait_ready(window)
    _drop(window, [folder])
    wait_ready(window)
    assert len(window.gallery_panel.tiles()) == 2
    assert any("already in the gallery" in t for t in window.messages.texts())


@pytest.mark.testdata
def test_dropping_photos_adds_faces(make_window, wait_ready) -> None:
    photo = TESTDATA / "obama_1.jpg"
    if not photo.is_file():
        pytest.skip("../shared/testdata is not here")
    window = make_window()
    wait_ready(window)
    _drop(window, [photo])
    wait_ready(window)
    tiles = window.gallery_panel.tiles()
    assert len(tiles) == 3 and tiles[2].state == "ready"
    assert window.gallery.entries()[2].paths == (str(photo),)


def test_removing_the_active_face(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    first = window.gallery_panel.tiles()[0]
    key = first.key
    qtbot.mouseClick(first.remove_button, Qt.MouseButton.LeftButton)
    assert len(window.gallery_panel.tiles()) == 1
    assert window.core.engine.settings.swap.source_key is None
    assert window.core.library.get(key) is None
    assert len(window.gallery.entries()) == 1


def test_mapping_mode_ctrl_click(qtbot, make_window, wait_ready) -> None:
    window = make_window()
    wait_ready(window)
    window.core.apply("swap.face_selection", "map")
    first, second = window.gallery_panel.tiles()
    qtbot.mouseClick(second, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(first, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier)
    swap = window.core.engine.settings.swap
    assert swap.source_keys == (second.key, first.key)
    assert "L1" in second.badge.text() and "L2" in first.badge.text()
    assert first.property("active") and second.property("active")
    # Ctrl+click on a mapped face takes it out again.
    qtbot.mouseClick(second, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier)
    assert window.core.engine.settings.swap.source_keys == (first.key,)


def test_command_line_face_becomes_active(make_window, wait_ready, tmp_path: Path) -> None:
    face = tmp_path / "my_face.jpg"
    shutil.copy(DEMO_PORTRAIT, face.with_suffix(".png"))
    face = face.with_suffix(".png")
    window = make_window(source_faces=[face])
    wait_ready(window)
    items = window.gallery.items()
    assert items[0].paths == (face,)
    assert window.core.engine.settings.swap.source_key == items[0].key
