"""A model file zeroed in place after it was verified (a crash, a bad copy) keeps its
size and modification time, so its `.verified` stamp still matches. Loading it must
stop at once — protobuf has no field number 0 — and report the file as corrupt, after
hashing it again, with the command that replaces it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from engine.core.settings import ModelSettings
from engine.models import Manifest, ModelCorruptError, ModelSpec, ModelStore, SignatureError
from engine.models.hashing import stamp_path
from engine.neural.loading import load_swap_models
from engine.neural.onnx_initializer import read_last_initializer
from tests.engine.neural_fakes import make_arcface, make_inswapper


def _spec(path: Path, family: str) -> ModelSpec:
    data = path.read_bytes()
    return ModelSpec(
        name=path.stem,
        file=path.name,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        urls=(f"https://example.org/{path.name}",),
        licence="test",
        family=family,
    )


def zero_in_place(path: Path, size: int | None = None) -> None:
    """Zeros over the file, with its size and modification time as they were."""
    before = path.stat()
    with path.open("r+b") as handle:
        handle.truncate(0)
        handle.truncate(size if size is not None else before.st_size)  # sparse: all zeros
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


# A guard against the old byte-by-byte walk (minutes on 554 MB), not a speed measurement:
# the parser now stops at the first key, byte 0.
@pytest.mark.timeout(10)
def test_the_parser_stops_at_the_first_impossible_key(tmp_path: Path) -> None:
    path = make_inswapper(tmp_path / "swapper.onnx")
    zero_in_place(path, 554 << 20)  # the real inswapper_128's size
    with pytest.raises(SignatureError, match="field number 0 at byte 0"):
        read_last_initializer(path)


@pytest.mark.timeout(10)
def test_a_zeroed_model_with_a_valid_stamp_is_reported_corrupt_with_the_fix(
    tmp_path: Path,
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    swapper = make_inswapper(models / "fake_swapper.onnx")
    arcface = make_arcface(models / "fake_arcface.onnx")
    store = ModelStore(
        Manifest((_spec(swapper, "inswapper"), _spec(arcface, "arcface"))), data_dir=tmp_path
    )
    assert store.verify("fake_swapper").state == "ready"  # stamped
    zero_in_place(swapper)
    assert store.status("fake_swapper").state == "ready"  # the stamp alone cannot tell
    settings = ModelSettings(
        provider="cpu", swapper_model="fake_swapper", recognition_model="fake_arcface"
    )
    with pytest.raises(ModelCorruptError) as info:
        load_swap_models(store, settings)
    message = str(info.value)
    assert "fake_swapper" in message and "failed to load" in message
    assert "run `fusecam models download fake_swapper` to replace it" in message
    assert f"expected {store.spec('fake_swapper').sha256}" in message  # re-hashed
    assert not stamp_path(swapper).exists()  # the stale stamp is gone
    assert store.status("fake_swapper").state == "unverified"
