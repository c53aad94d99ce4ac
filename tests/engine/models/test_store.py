"""The model store: locations, states, resolve errors, user-supplied models."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from engine.models import (
    Manifest,
    ModelCorruptError,
    ModelError,
    ModelMissingError,
    ModelSpec,
    ModelStore,
    SignatureError,
    default_data_dir,
)
from engine.models.manifest import MANIFEST_PATH, load_manifest
from engine.models.onnx import ModelLoadError
from engine.neural.signature import register_user_model
from tests.engine.neural_fakes import make_arcface, make_gfpgan


def _spec(name: str, data: bytes, **extra: object) -> ModelSpec:
    return ModelSpec(
        name=name,
        file=f"{name}.onnx",
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        urls=(f"https://example.org/{name}.onnx",),
        licence="MIT",
        **extra,  # type: ignore[arg-type]
    )


def test_data_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUSECAM_DATA_DIR", str(tmp_path))
    assert default_data_dir() == tmp_path
    assert ModelStore(data_dir=None).models_dir == tmp_path / "models"


def test_bundled_models_resolve_inside_the_repository(tmp_path: Path) -> None:
    store = ModelStore(data_dir=tmp_path)
    path = store.resolve("face_landmark")
    assert path.parent == MANIFEST_PATH.parent and path.is_file()
    status = store.verify("face_landmark")  # the bundled file matches its pinned hash
    assert status.state == "ready", status.detail


def test_missing_download_says_how_to_get_it(tmp_path: Path) -> None:
    store = ModelStore(data_dir=tmp_path)
    with pytest.raises(ModelMissingError) as info:
        store.resolve("inswapper_128")
    message = str(info.value)
    assert "inswapper_128" in message and "fusecam models download inswapper_128" in message
    assert info.value.model == "inswapper_128"
    assert isinstance(info.value, ModelLoadError)  # callers catching load errors see it
    assert [s.name for s in store.requirements("inswapper_128")] == ["w600k_r50", "inswapper_128"]


def test_changed_file_loses_its_verified_state(tmp_path: Path) -> None:
    data = b"model bytes"
    store = ModelStore(Manifest((_spec("demo", data),)), data_dir=tmp_path)
    store.models_dir.mkdir(parents=True)
    path = store.models_dir / "demo.onnx"
    path.write_bytes(data)
    assert store.resolve("demo") == path
    assert store.status("demo").state == "ready"
    path.write_bytes(b"model bytez")  # same size, new content and mtime
    os.utime(path, ns=(1, 1))
    assert store.status("demo").state == "unverified"
    with pytest.raises(ModelCorruptError, match="fusecam models download demo"):
        store.resolve("demo")
    assert store.verify("demo").state == "corrupt"


def test_requirements_come_first_and_once(tmp_path: Path) -> None:
    a, b = _spec("a", b"a"), _spec("b", b"b", requires=("a",))
    c = _spec("c", b"c", requires=("a", "b"))
    store = ModelStore(Manifest((a, b, c)), data_dir=tmp_path)
    assert [s.name for s in store.requirements("c")] == ["a", "b", "c"]


def test_user_supplied_gfpgan_is_registered_and_reported(tmp_path: Path) -> None:
    model = make_gfpgan(tmp_path / "my_gfpgan.onnx", size=128)
    store = ModelStore(data_dir=tmp_path / "data")
    spec = register_user_model(store, model, "gfpgan")
    assert spec.name == "user-my_gfpgan" and spec.user_supplied
    status = store.status(spec.name)
    assert status.state == "ready" and "user supplied, unverified" in status.label
    assert store.resolve(spec.name) == model.resolve()
    assert not (tmp_path / "my_gfpgan.onnx.verified").exists()  # nothing beside user files
    # Survives a fresh store (the registry is on disk), and is refused once changed.
    again = ModelStore(data_dir=tmp_path / "data")
    model.write_bytes(model.read_bytes() + b"\0")
    with pytest.raises(ModelCorruptError, match="changed since it was registered"):
        again.resolve(spec.name)
    assert again.unregister_user_model(spec.name)
    assert spec.name not in again.manifest


def test_user_model_with_the_wrong_signature_is_refused(tmp_path: Path) -> None:
    store = ModelStore(data_dir=tmp_path / "data")
    arcface = make_arcface(tmp_path / "arcface.onnx")
    with pytest.raises(SignatureError, match=r"N×3×S×S with S a multiple of 128"):
        register_user_model(store, arcface, "gfpgan")
    with pytest.raises(ModelError, match="no such model file"):
        register_user_model(store, tmp_path / "absent.onnx", "gfpgan")
    with pytest.raises(ModelError, match="belongs to a manifest model"):
        register_user_model(store, arcface, "arcface", name="w600k_r50")
    assert not store.user_registry.exists()


def test_manifest_on_disk_roundtrips_user_and_repo_entries(tmp_path: Path) -> None:
    store = ModelStore(load_manifest(MANIFEST_PATH), data_dir=tmp_path)
    names = [s.spec.name for s in store.list_status()]
    assert "inswapper_128" in names and "face_landmark" in names
