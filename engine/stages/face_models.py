"""The built-in face models (BlazeFace short and full range, face mesh, iris) under the
same lifecycle as every other model: loaded on a named background thread
(`load-face-models`, stages/loader.py), never on the engine thread or the thread that
builds the stages.

The face stage (stages/faces.py) owns one `FaceModels`. Until the models are ready a
live frame passes through: the face stage skips it with the reason "loading" and marks
the packet (`face_models_loading`, the output guard's "starting"). An offline packet
(`packet.live` False: `fusecam swap`, tests) waits for the load instead, so the same
input always gives the same frames.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.face.analyzer import FaceAnalyzer
from engine.models.onnx import ModelLoadError
from engine.stages.loader import BackgroundLoader

LOADING = "loading"  # the face stage's skip reason while the models load
_KEY = "bundled"  # one configuration: the provider is fixed when the stages are built
_WAIT_S = 60.0  # four small bundled models; a cold disk on a slow machine


class FaceModels:
    """One set of bundled face models, loading or loaded (thread-safe to read)."""

    def __init__(self, load: Callable[[], FaceAnalyzer]) -> None:
        """`load` builds the analyzer on the loader thread; `start` begins it."""
        self._loader: BackgroundLoader[FaceAnalyzer] = BackgroundLoader(
            "face-models", lambda _settings: load(), loading=LOADING
        )
        self._analyzer: FaceAnalyzer | None = None

    @classmethod
    def ready(cls, analyzer: FaceAnalyzer) -> FaceModels:
        """Models already loaded (the source library's, a test's): no thread, no wait."""
        models = cls(lambda: analyzer)
        models._analyzer = analyzer
        return models

    @property
    def analyzer(self) -> FaceAnalyzer | None:
        """The analyzer once it has loaded."""
        return self._analyzer

    def start(self, settings: EngineSettings) -> None:
        """Begin loading now, so the first frames wait as little as possible."""
        if self._analyzer is None:
            self._loader.get(_KEY, settings)

    def get(self, packet: FramePacket, settings: EngineSettings) -> FaceAnalyzer | str:
        """The analyzer, or why a live packet goes without it (loading, or the load's
        error). An offline packet waits for it (ModelLoadError if it cannot load)."""
        if self._analyzer is not None:
            return self._analyzer
        if not packet.live:
            return self.wait(settings)
        analyzer, reason = self._loader.get(_KEY, settings)
        if analyzer is None:
            return reason or LOADING
        # Only ever set, never cleared: `wait` on another thread may set it too.
        self._analyzer = analyzer
        return analyzer

    def wait(self, settings: EngineSettings) -> FaceAnalyzer:
        """Block until loaded (offline runs, `prepare`, the app's build task)."""
        analyzer = self._analyzer
        if analyzer is None:
            reason = self._loader.wait(_KEY, settings, _WAIT_S)
            if reason == LOADING:
                raise ModelLoadError(f"the face models did not load within {_WAIT_S:.0f} s")
            if reason is not None:
                raise ModelLoadError(f"face models: {reason}")
            analyzer = self._loader.get(_KEY, settings)[0]
            assert analyzer is not None  # no reason: loaded
            self._analyzer = analyzer
        return analyzer

    def providers(self) -> tuple[str, ...]:
        return self._analyzer.providers if self._analyzer is not None else ()

    def stop(self, timeout: float = 2.0) -> None:
        self._loader.stop(timeout)
