"""The one way a stage loads its models: on a named background thread, never on the
engine thread, so the live stream passes frames through (with a reason) until they are
ready. Offline runs (`prepare`) wait for the same load instead."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from engine.core.settings import EngineSettings
from engine.core.threads import Worker
from engine.models.onnx import ModelLoadError

Loaded = TypeVar("Loaded")


class _LoadWorker(Worker, Generic[Loaded]):
    def __init__(self, name: str, build: Callable[[], Loaded]) -> None:
        super().__init__(name)
        self._build = build
        self.result: Loaded | None = None

    def _run(self) -> None:
        try:
            self.result = self._build()
        except ModelLoadError as exc:
            # Expected (model not downloaded, corrupt): a reason for the user, no traceback.
            self.error = exc


class BackgroundLoader(Generic[Loaded]):
    """Builds `Loaded` (a stage, a tracker) once per configuration key on a named
    background thread (`load-<name>`)."""

    def __init__(
        self,
        name: str,
        build: Callable[[EngineSettings], Loaded],
        loading: str | None = None,
    ) -> None:
        """`loading`: the reason `get` gives until the load is done (default: "<name>
        model is loading")."""
        self.name = name
        self._build = build
        self._loading = loading or f"{name} model is loading"
        self._lock = threading.Lock()
        self._key: Hashable | None = None
        self._worker: _LoadWorker[Loaded] | None = None

    def get(self, key: Hashable, settings: EngineSettings) -> tuple[Loaded | None, str | None]:
        """(loaded, None) when ready; (None, reason) while loading or after a failure."""
        with self._lock:
            if key != self._key or self._worker is None:
                self._key = key
                self._worker = _LoadWorker(f"load-{self.name}", lambda: self._build(settings))
                self._worker.start()
            worker = self._worker
        if worker.result is not None:
            return worker.result, None
        if worker.error is not None:
            return None, str(worker.error)
        return None, self._loading

    def stop(self, timeout: float = 2.0) -> None:
        if self._worker is not None:
            self._worker.stop(timeout)

    def wait(self, key: Hashable, settings: EngineSettings, timeout: float) -> str | None:
        """Load now and block until done; None when ready, else why not."""
        self.get(key, settings)
        with self._lock:
            worker = self._worker
        assert worker is not None
        worker.join(timeout)
        return self.get(key, settings)[1]
