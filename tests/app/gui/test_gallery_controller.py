"""GalleryController on its own: a real panel, a real face library and a real task
thread, no window. Loading, failures, duplicates, removal, activation, highlighting."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.gui.controllers.gallery import GalleryController, bundled_samples, expand_paths
from app.gui.controllers.tasks import TaskRunner
from app.gui.widgets.gallery import GalleryPanel
from engine.core.paths import DEFAULT_SOURCE_FACE, SAMPLE_FACES_DIR
from engine.core.settings import EngineSettings
from engine.persist.settings_store import GalleryEntry
from engine.swap.library import SourceLibrary

GRACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"
EILEEN = SAMPLE_FACES_DIR / "astronaut_eileen_collins.png"


class Recorded:
    """What the controller's signals said, in order."""

    def __init__(self, gallery: GalleryController) -> None:
        self.loaded: list[str] = []
        self.removed: list[str] = []
        self.activated: list[tuple[str, bool]] = []
        self.messages: list[tuple[str, str]] = []
        self.list_changes = 0
        gallery.face_loaded.connect(self.loaded.append)
        gallery.face_removed.connect(self.removed.append)
        gallery.activate_requested.connect(lambda key, ctrl: self.activated.append((key, ctrl)))
        gallery.message.connect(lambda level, text: self.messages.append((level, text)))
        gallery.list_changed.connect(self._changed)

    def _changed(self) -> None:
        self.list_changes += 1


@pytest.fixture
def gallery(qtbot) -> Iterator[GalleryController]:  # type: ignore[no-untyped-def]
    panel = GalleryPanel()
    qtbot.addWidget(panel)
    tasks = TaskRunner("test-gallery")
    controller = GalleryController(panel, SourceLibrary(), tasks)
    yield controller
    tasks.stop(5.0)


def _wait_loaded(qtbot, gallery: GalleryController) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: gallery.loading == 0, timeout=60000)


def test_faces_load_off_the_gui_thread_and_keep_their_order(qtbot, gallery) -> None:
    seen = Recorded(gallery)
    first = gallery.add_group([GRACE])
    second = gallery.add_group([EILEEN])
    assert gallery.loading == 2 and gallery.keys() == []  # queued, not loaded inline
    _wait_loaded(qtbot, gallery)
    keys = gallery.keys()
    assert len(keys) == 2 and seen.loaded == keys
    assert [i.entry_id for i in gallery.items()] == [first, second]
    assert gallery.names_for(keys) == [i.name for i in gallery.items()]
    assert gallery.tiles_for_key(keys[0]) == [gallery.panel.tile(first)]
    assert gallery.entries() == (GalleryEntry((str(GRACE),)), GalleryEntry((str(EILEEN),)))
    assert seen.list_changes == 2
    # The same photos again are the same entry: no second tile, no second load.
    assert gallery.add_group([GRACE]) == first and len(gallery.panel.tiles()) == 2


def test_a_photo_without_a_face_fails_on_its_tile(qtbot, gallery, tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 200, 3), 128, np.uint8))
    seen = Recorded(gallery)
    entry = gallery.add_group([blank])
    _wait_loaded(qtbot, gallery)
    item = gallery.items()[0]
    assert item.key is None and item.error is not None and seen.loaded == []
    tile = gallery.panel.tile(entry)
    assert tile is not None and tile.state == "failed"
    # Clicking it says why it cannot be used, and activates nothing.
    assert gallery.activate_number(1)
    assert seen.activated == [] and seen.messages[-1][0] == "warning"
    assert "cannot be used" in seen.messages[-1][1]


def test_the_same_face_under_another_name_is_dropped(qtbot, gallery, tmp_path: Path) -> None:
    copy = tmp_path / "copy_of_grace.jpg"
    shutil.copyfile(GRACE, copy)
    seen = Recorded(gallery)
    gallery.add_group([GRACE])
    gallery.add_group([copy])
    _wait_loaded(qtbot, gallery)
    assert len(gallery.items()) == 1 and gallery.items()[0].paths == (GRACE,)
    assert any("already in the gallery" in text for _, text in seen.messages)
    assert seen.removed == []  # the face itself is still there


def test_removing_the_last_entry_of_a_face_forgets_it(qtbot, gallery) -> None:
    seen = Recorded(gallery)
    entry = gallery.add_group([GRACE])
    _wait_loaded(qtbot, gallery)
    (key,) = gallery.keys()
    assert gallery.library.keys() == [key]
    gallery.remove(entry)
    assert seen.removed == [key] and gallery.items() == []
    assert gallery.library.keys() == []
    gallery.remove(entry)  # twice: nothing more happens
    assert seen.removed == [key]


def test_activation_by_number_and_highlighting(qtbot, gallery) -> None:
    seen = Recorded(gallery)
    gallery.restore((GalleryEntry((str(GRACE),)), GalleryEntry((str(EILEEN),))))
    assert seen.list_changes == 0  # restoring is not a change to save
    _wait_loaded(qtbot, gallery)
    grace, eileen = gallery.keys()
    assert gallery.activate_number(2) and seen.activated == [(eileen, False)]
    assert not gallery.activate_number(3) and not gallery.activate_number(0)

    swap = EngineSettings().swap
    tiles = gallery.panel.tiles()
    gallery.show_settings(
        dataclasses.replace(EngineSettings(), swap=dataclasses.replace(swap, source_key=eileen))
    )
    assert [t.property("active") for t in tiles] == [False, True]
    assert [t.badge.text() for t in tiles] == ["1", "2"]
    mapped = dataclasses.replace(swap, face_selection="map", source_keys=(eileen, grace))
    gallery.show_settings(dataclasses.replace(EngineSettings(), swap=mapped))
    assert [t.property("active") for t in tiles] == [True, True]
    assert [t.badge.text() for t in tiles] == ["1 ·L2", "2 ·L1"]


def test_adding_files_and_folders(qtbot, gallery, tmp_path: Path) -> None:
    seen = Recorded(gallery)
    assert gallery.add_files([tmp_path]) == []  # an empty folder: nothing, and a message
    assert seen.messages[-1][0] == "warning"
    (tmp_path / "notes.txt").write_text("not a photo")
    shutil.copyfile(GRACE, tmp_path / "b.jpg")
    shutil.copyfile(EILEEN, tmp_path / "a.png")
    assert expand_paths([tmp_path]) == [tmp_path / "a.png", tmp_path / "b.jpg"]
    assert len(gallery.add_files([tmp_path])) == 2  # each photo its own face
    _wait_loaded(qtbot, gallery)
    assert len(gallery.keys()) == 2


def test_the_bundled_samples_start_with_the_default_face() -> None:
    samples = bundled_samples()
    assert samples[0] == GalleryEntry((str(DEFAULT_SOURCE_FACE),))
    assert {Path(e.paths[0]) for e in samples} == {GRACE, EILEEN}
