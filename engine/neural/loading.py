"""Building the neural models from settings: resolve through the store, pick variants,
apply the manifest's preprocessing numbers, and check family signatures."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from engine.core.settings import ModelSettings
from engine.models.errors import ModelMissingError, SignatureError
from engine.models.manifest import ModelSpec
from engine.models.onnx import ModelLoadError, requested_providers
from engine.models.store import ModelStore
from engine.neural.arcface import ArcFaceEmbedder
from engine.neural.inswapper import InSwapper
from engine.neural.restorer import FaceRestorer

log = logging.getLogger(__name__)

_GPU_PROVIDERS = ("CUDAExecutionProvider", "TensorrtExecutionProvider")
_Loaded = TypeVar("_Loaded")


def _checked_load(store: ModelStore, spec: ModelSpec, load: Callable[[Path], _Loaded]) -> _Loaded:
    """`load` the model's resolved file; when that fails, hash the file again: a stamp
    that matches its size and time does not prove its bytes, and a damaged file must be
    reported as corrupt with the command that replaces it, not as a puzzling load error."""
    path = store.resolve(spec.name)
    try:
        return load(path)
    except ModelLoadError as exc:
        corrupt = store.recheck(spec.name, exc)
        if corrupt is not None:
            raise corrupt from exc
        raise


def _expect_family(spec: ModelSpec, family: str) -> None:
    if spec.family != family:
        raise SignatureError(
            f"model {spec.name!r} is of family {spec.family!r}, not {family!r}; "
            "choose another model in the settings"
        )


def _pick_variant(store: ModelStore, spec: ModelSpec, settings: ModelSettings) -> ModelSpec:
    """The fp16 variant when a GPU provider is requested and that file is present: half
    the memory traffic where tensor cores run it; CPUs gain nothing from fp16 weights."""
    if not (settings.prefer_fp16 and spec.fp16_variant):
        return spec
    if requested_providers(settings.provider)[0] not in _GPU_PROVIDERS:
        return spec
    variant = store.spec(spec.fp16_variant)
    return variant if store.status_of(variant).available else spec


@dataclass(frozen=True, slots=True)
class SwapModels:
    swapper: InSwapper
    embedder: ArcFaceEmbedder
    swapper_spec: ModelSpec
    embedder_spec: ModelSpec

    @property
    def key(self) -> str:
        """Identifies the model pair, for caching source latents."""
        return f"{self.swapper_spec.name}:{self.swapper_spec.sha256[:12]}+{self.embedder_spec.name}"


def load_swap_models(store: ModelStore, settings: ModelSettings) -> SwapModels:
    """Swapper + recognition model; ModelMissingError / ModelCorruptError name the fix."""
    swapper_spec = _pick_variant(store, store.spec(settings.swapper_model), settings)
    _expect_family(swapper_spec, "inswapper")
    embedder_spec = store.spec(settings.recognition_model)
    _expect_family(embedder_spec, "arcface")
    store.resolve(swapper_spec.name)  # both present before either loads
    store.resolve(embedder_spec.name)
    io = settings.io_binding
    swapper = _checked_load(
        store,
        swapper_spec,
        lambda path: InSwapper.load(
            path,
            provider=settings.provider,
            io_binding=None if io else False,
            mean=swapper_spec.input_float("mean", 0.0),
            std=swapper_spec.input_float("std", 255.0),
        ),
    )
    embedder = _checked_load(
        store,
        embedder_spec,
        lambda path: ArcFaceEmbedder.load(
            path,
            provider=settings.provider,
            io_binding=None if io else False,
            mean=embedder_spec.input_float("mean", 127.5),
            std=embedder_spec.input_float("std", 127.5),
        ),
    )
    return SwapModels(swapper, embedder, swapper_spec, embedder_spec)


@dataclass(frozen=True, slots=True)
class RestorerModel:
    restorer: FaceRestorer
    label: str  # the model name, or the path of a file given directly
    user_supplied: bool


def load_restorer(store: ModelStore, settings: ModelSettings) -> RestorerModel:
    """The enhancer model named (or given by path) in the settings."""
    choice = settings.enhancer_model.strip()
    io = None if settings.io_binding else False
    if not choice:
        raise ModelMissingError(
            "enhancer",
            "no neural enhancer model is chosen: register a GFPGAN-style ONNX file with "
            "`fusecam models add PATH --family gfpgan` and select it, or use the built-in "
            "enhancer",
        )
    if choice.endswith(".onnx") or "/" in choice or "\\" in choice:
        path = Path(choice).expanduser()
        if not path.is_file():
            raise ModelMissingError("enhancer", f"enhancer model file {path} does not exist")
        log.warning("enhancer %s is user supplied and unverified (no pinned hash)", path)
        restorer = FaceRestorer.load(path, provider=settings.provider, io_binding=io)
        return RestorerModel(restorer, str(path), user_supplied=True)
    spec = store.spec(choice)
    _expect_family(spec, "gfpgan")
    restorer = _checked_load(
        store, spec, lambda path: FaceRestorer.load(path, provider=settings.provider, io_binding=io)
    )
    return RestorerModel(restorer, spec.name, user_supplied=spec.user_supplied)
