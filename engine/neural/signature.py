"""Checking that an ONNX file fits a model family, before it is registered or used."""

from __future__ import annotations

from pathlib import Path

from engine.models.errors import SignatureError
from engine.models.manifest import FAMILIES, ModelSpec
from engine.models.store import ModelStore
from engine.neural.arcface import ArcFaceEmbedder
from engine.neural.inswapper import InSwapper
from engine.neural.restorer import FaceRestorer


def check_signature(path: Path, family: str) -> None:
    """Load `path` on the CPU and check its inputs/outputs fit `family` (SignatureError)."""
    if family not in FAMILIES:
        raise SignatureError(f"unknown model family {family!r}; one of {', '.join(FAMILIES)}")
    if family == "inswapper":
        InSwapper.load(path, provider="cpu")
    elif family == "arcface":
        ArcFaceEmbedder.load(path, provider="cpu")
    else:
        FaceRestorer.load(path, provider="cpu")


def register_user_model(
    store: ModelStore, path: Path, family: str, name: str | None = None
) -> ModelSpec:
    """Register a model file the user supplies, once it is shown to run as `family`."""
    return store.register_user_model(path, family, name, check=check_signature)
