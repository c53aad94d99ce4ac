"""How many client threads read a stream feed: the feed encodes only while one does."""

from __future__ import annotations

import threading


class Watched:
    """A feed's watcher count, kept under the feed's own condition (`_cond`)."""

    _cond: threading.Condition
    _watchers: int = 0

    def watch(self) -> None:
        with self._cond:
            self._watchers += 1

    def unwatch(self) -> None:
        with self._cond:
            self._watchers -= 1

    @property
    def watchers(self) -> int:
        return self._watchers
