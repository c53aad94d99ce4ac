"""Which gallery face is active (or, in map mode, which faces left to right).

The choice lives in the engine settings (`swap.source_key`, `swap.source_keys`). A face
saved as active in the last session only becomes active once it has loaded again: until
then the engine swaps nothing rather than asking the library for an unknown key. No Qt.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from engine.core.settings import EngineSettings


class FaceSelection:
    def __init__(
        self,
        settings: Callable[[], EngineSettings],
        apply: Callable[[EngineSettings], None],
        loaded_keys: Callable[[], Sequence[str]],
        saved: EngineSettings,
    ) -> None:
        self._settings = settings
        self._apply = apply
        self._loaded_keys = loaded_keys
        self.pending_key: str | None = saved.swap.source_key
        self.pending_keys: tuple[str, ...] = saved.swap.source_keys

    @staticmethod
    def without_faces(settings: EngineSettings) -> EngineSettings:
        """The settings to start the engine with: no face until one has loaded."""
        swap = dataclasses.replace(settings.swap, source_key=None, source_keys=())
        return dataclasses.replace(settings, swap=swap)

    def set_swap(self, **changes: Any) -> None:
        settings = self._settings()
        swap = dataclasses.replace(settings.swap, **changes)
        self._apply(dataclasses.replace(settings, swap=swap))

    def forget_saved(self) -> None:
        """The user (or the command line) chose: the saved face no longer applies."""
        self.pending_key = None
        self.pending_keys = ()

    def activate(self, key: str, add_to_mapping: bool = False) -> None:
        """Make a face active; in map mode, Ctrl adds it to (or drops it from) the mapping.
        Picking a face is a clear wish to see it, so it also switches the swap on."""
        swap = self._settings().swap
        self.forget_saved()
        if swap.face_selection == "map" and add_to_mapping:
            keys = tuple(k for k in swap.source_keys if k != key)
            if key not in swap.source_keys:
                keys += (key,)
            self.set_swap(source_keys=keys, source_key=keys[0] if keys else None, enabled=True)
        elif swap.face_selection == "map":
            self.set_swap(source_keys=(key,), source_key=key, enabled=True)
        else:
            self.set_swap(source_key=key, enabled=True)

    def start_mapping(self) -> bool:
        """Map mode was chosen with nothing mapped: the face in use becomes the leftmost
        one, so switching modes never drops the swap. True when it changed the settings."""
        swap = self._settings().swap
        if swap.source_keys or swap.source_key is None:
            return False
        self.set_swap(source_keys=(swap.source_key,))
        return True

    def on_loaded(self, key: str) -> None:
        swap = self._settings().swap
        if key in self.pending_keys:
            loaded = set(self._loaded_keys())
            self.set_swap(source_keys=tuple(k for k in self.pending_keys if k in loaded))
        # The saved face, or — with none saved or active — the first face that loads.
        if self.pending_key == key or (self.pending_key is None and swap.source_key is None):
            self.pending_key = None
            self.set_swap(source_key=key)

    def on_removed(self, key: str) -> None:
        swap = self._settings().swap
        keys = tuple(k for k in swap.source_keys if k != key)
        active = None if swap.source_key == key else swap.source_key
        self.set_swap(source_keys=keys, source_key=active)

    def for_saving(self, settings: EngineSettings) -> EngineSettings:
        """Settings to persist: a saved face that has not loaded yet stays saved."""
        swap = settings.swap
        if self.pending_key is not None and swap.source_key is None:
            swap = dataclasses.replace(swap, source_key=self.pending_key)
        if self.pending_keys and not swap.source_keys:
            swap = dataclasses.replace(swap, source_keys=self.pending_keys)
        return dataclasses.replace(settings, swap=swap)
