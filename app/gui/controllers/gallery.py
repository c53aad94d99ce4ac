"""Gallery logic: load faces off the GUI thread, keep the list, pick the active face.

Loading (detection + fit) runs on a `TaskRunner` thread through the shared
`SourceLibrary`; a face that fails shows the reason on its tile. The list of entries
(paths) is what persists; keys are content hashes the library recomputes on load.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.gui.controllers.tasks import TaskRunner
from app.gui.i18n import tr
from app.gui.widgets.gallery import FaceTile, GalleryPanel
from engine.core.imageio import IMAGE_SUFFIXES
from engine.core.paths import DEFAULT_SOURCE_FACE, SAMPLE_FACES_DIR
from engine.core.settings import EngineSettings
from engine.persist.settings_store import GalleryEntry

log = logging.getLogger(__name__)


def bundled_samples() -> tuple[GalleryEntry, ...]:
    """The public-domain sample faces shipped in engine/resources/faces, one entry each."""
    files = sorted(p for p in SAMPLE_FACES_DIR.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    # The default source face first: it becomes active on first launch, and the demo
    # portrait swapped with itself would show no change.
    files.sort(key=lambda p: p != DEFAULT_SOURCE_FACE)
    return tuple(GalleryEntry((str(p),)) for p in files)


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Image files as given; a folder gives the images directly inside it, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES))
        elif path.suffix.lower() in IMAGE_SUFFIXES:
            found.append(path)
    return found


def short_reason(message: str) -> str:
    """The reason part of "FILE: reason (detail)" — what fits on a tile. Details that
    repeat the file's path are dropped; the tile's tooltip keeps the whole message."""
    reason = message.split(": ", 1)[1] if ": " in message else message
    reason = re.sub(r"\s*\([^()]*[/\\][^()]*\)", "", reason).strip()
    return reason[:1].upper() + reason[1:] if reason else tr("Could not load")


@dataclass(slots=True)
class Item:
    entry_id: int
    paths: tuple[Path, ...]
    key: str | None = None
    name: str = ""
    error: str | None = None


class GalleryController(QObject):
    activate_requested = Signal(str, bool)  # key, add to mapping (Ctrl)
    face_loaded = Signal(str)  # key
    face_removed = Signal(str)  # key, no longer in the gallery
    list_changed = Signal()
    message = Signal(str, str)  # level, text

    def __init__(
        self, panel: GalleryPanel, library: Any, tasks: TaskRunner, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.panel = panel
        self.library = library
        self.tasks = tasks
        self._items: dict[int, Item] = {}
        self._next_id = 1
        self.loads_done = 0

    # --- adding and removing -----------------------------------------------------------
    def restore(self, entries: Sequence[GalleryEntry]) -> None:
        for entry in entries:
            self.add_group([Path(p) for p in entry.paths], notify=False)

    def add_files(self, paths: Iterable[Path]) -> list[int]:
        """Each image (or each image in a folder) becomes its own face."""
        files = expand_paths(paths)
        if not files:
            self.message.emit("warning", tr("No images found to add (use JPEG or PNG photos)."))
            return []
        return [self.add_group([p]) for p in files]

    def add_group(self, paths: Sequence[Path], notify: bool = True) -> int:
        """Several photos of one person become one face."""
        group = tuple(Path(p) for p in paths)
        for item in self._items.values():
            if item.paths == group:
                return item.entry_id
        entry_id = self._next_id
        self._next_id += 1
        item = Item(entry_id, group, name=group[0].stem)
        self._items[entry_id] = item
        tile = self.panel.add_tile(entry_id, item.name)
        tile.clicked.connect(self._on_tile_clicked)
        tile.remove_requested.connect(self.remove)
        self._renumber()
        self.tasks.submit(
            lambda: self.library.load(list(group)),
            lambda info, error: self._on_loaded(entry_id, info, error),
        )
        if notify:
            self.list_changed.emit()
        return entry_id

    def _on_loaded(self, entry_id: int, info: Any, error: BaseException | None) -> None:
        self.loads_done += 1
        item = self._items.get(entry_id)
        tile = self.panel.tile(entry_id)
        if item is None or tile is None:
            return  # removed while it loaded
        if error is not None:
            item.error = str(error)
            tile.set_failed(short_reason(str(error)), str(error))
            return
        duplicate = next(
            (o for o in self._items.values() if o.key == info.key and o is not item), None
        )
        item.key, item.name = info.key, info.name
        tile.set_ready(info.key, info.name, info.thumbnail, info.warning)
        if duplicate is not None:
            self.message.emit(
                "info", tr("{name} is already in the gallery.").format(name=info.name)
            )
            self.remove(entry_id)
            return
        self.face_loaded.emit(info.key)

    def remove(self, entry_id: int) -> None:
        item = self._items.pop(entry_id, None)
        if item is None:
            return
        self.panel.remove_tile(entry_id)
        self._renumber()
        if item.key is not None and item.key not in self.keys():
            with contextlib.suppress(KeyError):
                self.library.remove(item.key)
            self.face_removed.emit(item.key)
        self.list_changed.emit()

    # --- queries -----------------------------------------------------------------------
    def items(self) -> list[Item]:
        """In display order."""
        return [self._items[t.entry_id] for t in self.panel.tiles() if t.entry_id in self._items]

    def entries(self) -> tuple[GalleryEntry, ...]:
        return tuple(GalleryEntry(tuple(str(p) for p in i.paths)) for i in self.items())

    def keys(self) -> list[str]:
        return [i.key for i in self.items() if i.key is not None]

    def item_for_key(self, key: str) -> Item | None:
        return next((i for i in self._items.values() if i.key == key), None)

    def names_for(self, keys: Sequence[str]) -> list[str]:
        names = []
        for key in keys:
            item = self.item_for_key(key)
            names.append(item.name if item else key[:8])
        return names

    def tiles_for_key(self, key: str) -> list[FaceTile]:
        return [t for t in self.panel.tiles() if t.key == key]

    def visible_keys(self) -> list[str]:
        return [t.key for t in self.panel.visible_tiles() if t.key is not None]

    @property
    def loading(self) -> int:
        return sum(1 for i in self._items.values() if i.key is None and i.error is None)

    # --- activation --------------------------------------------------------------------
    def _on_tile_clicked(self, entry_id: int, ctrl: bool) -> None:
        item = self._items.get(entry_id)
        if item is None:
            return
        if item.key is None:
            reason = item.error or tr("still loading")
            text = tr("{name} cannot be used: {reason}").format(name=item.name, reason=reason)
            self.message.emit("warning", text)
            return
        self.activate_requested.emit(item.key, ctrl)

    def activate_number(self, number: int) -> bool:
        """1-based position in the strip (keys 1–9)."""
        tiles = self.panel.tiles()
        if not 1 <= number <= len(tiles):
            return False
        self._on_tile_clicked(tiles[number - 1].entry_id, False)
        return True

    def show_settings(self, settings: EngineSettings) -> None:
        """Highlight the active face (or the mapped faces) and number the tiles."""
        swap = settings.swap
        mapped = list(swap.source_keys) if swap.face_selection == "map" else []
        for tile in self.panel.tiles():
            if swap.face_selection == "map":  # only mapped faces are swapped: nothing else lit
                tile.set_active(tile.key in mapped)
            else:
                tile.set_active(tile.key is not None and tile.key == swap.source_key)
        self._renumber(mapped)

    def _renumber(self, mapped: Sequence[str] = ()) -> None:
        for position, tile in enumerate(self.panel.tiles(), start=1):
            text = str(position) if position <= 9 else ""
            if tile.key is not None and tile.key in mapped:
                text += f" ·L{list(mapped).index(tile.key) + 1}"
            tile.set_badge(text)
