"""The model manifest: the repository's file, and what validation refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.models import ManifestError, UnknownModelError, load_manifest
from engine.models.manifest import MANIFEST_PATH, spec_from_dict

INSWAPPER_SHA = "e4a3f08c753cb72d04e10aa0f7dbe3deebbf39567d4ead6dce08e98aa49e16af"
W600K_SHA = "4c06341c33c2ca1f86781dab0e829f88ad5b64be9fba56e56bc9ebdefc619e43"


def test_repository_manifest_pins_the_known_hashes() -> None:
    manifest = load_manifest(MANIFEST_PATH)
    swapper = manifest.get("inswapper_128")
    arcface = manifest.get("w600k_r50")
    assert swapper.sha256 == INSWAPPER_SHA and arcface.sha256 == W600K_SHA
    assert swapper.family == "inswapper" and arcface.family == "arcface"
    assert swapper.requires == ("w600k_r50",)
    assert swapper.input_size == 128 and arcface.input_size == 112
    assert arcface.input_float("mean", 0.0) == 127.5
    for spec in (swapper, arcface):
        assert not spec.bundled and spec.downloadable
        assert all(url.startswith("https://") for url in spec.urls)
        assert "non-commercial" in spec.notice and "non-commercial" in spec.licence


def test_every_bundled_model_file_is_in_the_repository() -> None:
    manifest = load_manifest(MANIFEST_PATH)
    bundled = [s for s in manifest.specs if s.bundled]
    assert bundled, "the manifest lists the bundled MediaPipe models"
    for spec in bundled:
        assert (MANIFEST_PATH.parent / spec.file).is_file(), spec.name


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": "demo",
        "file": "demo.onnx",
        "sha256": "ab" * 32,
        "size_bytes": 10,
        "urls": ["https://example.org/demo.onnx"],
        "licence": "MIT",
        "notice": "",
        "family": "gfpgan",
    }
    entry.update(changes)
    return entry


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"sha256": "AB" * 32}, "sha256 must be 64 lowercase hex"),
        ({"sha256": "ab" * 31}, "sha256 must be 64 lowercase hex"),
        ({"file": "../evil.onnx"}, "plain file name"),
        ({"file": "sub/demo.onnx"}, "plain file name"),
        ({"urls": ["http://example.org/demo.onnx"]}, "must be https"),
        ({"urls": ["ftp://example.org/demo.onnx"]}, "must be https"),
        ({"licence": ""}, "needs its licence"),
        ({"family": "magic"}, "family 'magic'"),
        ({"size_bytes": -1}, "size_bytes must be positive"),
        ({"size_bytes": "big"}, "whole number"),
        ({"name": "Bad Name"}, "name must be lowercase"),
    ],
)
def test_invalid_entries_are_refused_with_the_reason(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ManifestError, match=message):
        spec_from_dict(_entry(**changes), "test.json")


def test_loopback_http_is_allowed_for_local_mirrors() -> None:
    spec = spec_from_dict(_entry(urls=["http://127.0.0.1:8000/demo.onnx"]))
    assert spec.urls == ("http://127.0.0.1:8000/demo.onnx",)


def _write(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"models": entries}))
    return path


def test_duplicates_and_dangling_requirements_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="duplicate model names"):
        load_manifest(_write(tmp_path, [_entry(), _entry()]))
    with pytest.raises(ManifestError, match="refers to unknown 'nothing'"):
        load_manifest(_write(tmp_path, [_entry(requires=["nothing"])]))


def test_unreadable_manifest_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="is missing"):
        load_manifest(tmp_path / "absent.json")
    bad = tmp_path / "manifest.json"
    bad.write_text("{not json")
    with pytest.raises(ManifestError, match=r"manifest\.json cannot be read"):
        load_manifest(bad)


def test_unknown_model_lists_the_known_ones(tmp_path: Path) -> None:
    manifest = load_manifest(_write(tmp_path, [_entry()]))
    with pytest.raises(UnknownModelError, match="known models: demo"):
        manifest.get("other")


def test_specs_are_immutable(tmp_path: Path) -> None:
    spec = load_manifest(_write(tmp_path, [_entry(input={"shape": [1, 3, 512, 512]})])).get("demo")
    assert spec.input_size == 512
    with pytest.raises(TypeError):
        spec.input["shape"] = (1,)  # type: ignore[index]
