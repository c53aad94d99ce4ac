"""The model manifest (models/manifest.json): a typed, validated view of every model entry.

The SHA-256 of every file is pinned here, in the repository, and never fetched beside the
file: a mirror can be anything, the pinned hash is what protects the user.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from engine.core.paths import MODELS_DIR
from engine.models.errors import ManifestError, UnknownModelError

MANIFEST_PATH = MODELS_DIR / "manifest.json"

# Families the neural stages know how to run; bundled MediaPipe models carry none.
FAMILIES = ("inswapper", "arcface", "gfpgan")

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _frozen(value: Any) -> Any:
    """Deep read-only copy, so a frozen ModelSpec really cannot change under a stage."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def url_allowed(url: str) -> bool:
    """https anywhere; plain http only to this machine (tests, local mirrors). The
    pinned hash decides either way; this keeps downloads off unencrypted networks."""
    parts = urlsplit(url)
    secure = parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOOPBACK)
    return secure and bool(parts.hostname)


def _check(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ManifestError(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One model: where its file lives, how to check it, how to feed it, its licence."""

    name: str
    file: str
    sha256: str
    size_bytes: int | None = None
    bundled: bool = False
    urls: tuple[str, ...] = ()
    licence: str = ""
    notice: str = ""
    family: str | None = None
    source: str = ""
    preprocessing: str = ""
    input: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    requires: tuple[str, ...] = ()  # other models this one needs (inswapper needs ArcFace)
    fp16_variant: str | None = None  # a manifest entry with half-precision weights
    user_supplied: bool = False  # registered by the user; hash recorded, not pinned by us
    local_path: Path | None = None  # user-supplied models stay where the user keeps them
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        where = f"model {self.name!r}"
        _check(bool(_NAME.match(self.name)), where, "name must be lowercase [a-z0-9_.-]")
        _check(
            bool(self.file)
            and Path(self.file).name == self.file
            and not self.file.startswith(".")
            and "\\" not in self.file,
            where,
            f"file {self.file!r} must be a plain file name (no folders)",
        )
        _check(bool(_SHA256.match(self.sha256)), where, "sha256 must be 64 lowercase hex digits")
        _check(self.size_bytes is None or self.size_bytes > 0, where, "size_bytes must be positive")
        _check(
            self.family is None or self.family in FAMILIES,
            where,
            f"family {self.family!r} is not one of {', '.join(FAMILIES)}",
        )
        for url in self.urls:
            _check(url_allowed(url), where, f"URL {url!r} must be https")
        if not self.bundled and not self.user_supplied:
            _check(bool(self.licence), where, "a downloadable model needs its licence")
        _check(
            (self.local_path is not None) == self.user_supplied,
            where,
            "local_path is set exactly for user-supplied models",
        )

    @property
    def downloadable(self) -> bool:
        return not self.bundled and not self.user_supplied and bool(self.urls)

    @property
    def input_size(self) -> int | None:
        """Square input side in pixels, from the recorded input shape (NCHW unless NHWC)."""
        shape = self.input.get("shape")
        if not (isinstance(shape, tuple) and len(shape) == 4):
            return None
        side = shape[1] if self.input.get("layout") == "NHWC" else shape[2]
        return side if isinstance(side, int) else None

    def input_float(self, key: str, default: float) -> float:
        value = self.input.get(key, default)
        return float(value) if isinstance(value, int | float) else default


def spec_from_dict(entry: Mapping[str, Any], source: str = "manifest") -> ModelSpec:
    """A ModelSpec from one JSON entry; unknown keys are kept in `raw` for their readers."""
    _check(isinstance(entry, Mapping), source, "each model entry must be an object")
    where = f"{source}: model {entry.get('name')!r}"
    for key in ("name", "file", "sha256"):
        _check(isinstance(entry.get(key), str), where, f"{key!r} must be a string")
    urls = entry.get("urls", [])
    _check(
        isinstance(urls, list) and all(isinstance(u, str) for u in urls),
        where,
        "'urls' must be a list of strings",
    )
    size = entry.get("size_bytes")
    _check(
        size is None or (isinstance(size, int) and not isinstance(size, bool)),
        where,
        "'size_bytes' must be a whole number",
    )
    requires = entry.get("requires", [])
    _check(isinstance(requires, list), where, "'requires' must be a list of model names")
    model_input = entry.get("input", {})
    _check(isinstance(model_input, Mapping), where, "'input' must be an object")
    try:
        return ModelSpec(
            name=str(entry["name"]),
            file=str(entry["file"]),
            sha256=str(entry["sha256"]),
            size_bytes=size,
            bundled=bool(entry.get("bundled", False)),
            urls=tuple(urls),
            licence=str(entry.get("licence", "")),
            notice=str(entry.get("notice", "")),
            family=entry.get("family"),
            source=str(entry.get("source", "")),
            preprocessing=str(entry.get("preprocessing", "")),
            input=_frozen(model_input),
            requires=tuple(str(r) for r in requires),
            fp16_variant=entry.get("fp16_variant"),
            raw=_frozen(entry),
        )
    except ManifestError as exc:
        raise ManifestError(f"{source}: {exc}") from None


@dataclass(frozen=True, slots=True)
class Manifest:
    specs: tuple[ModelSpec, ...]
    path: Path | None = None

    def __post_init__(self) -> None:
        where = str(self.path or "manifest")
        names = [s.name for s in self.specs]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        _check(not duplicates, where, f"duplicate model names {duplicates}")
        known = set(names)
        for spec in self.specs:
            for other in (*spec.requires, *([spec.fp16_variant] if spec.fp16_variant else [])):
                _check(other in known, where, f"model {spec.name!r} refers to unknown {other!r}")

    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.specs)

    def get(self, name: str) -> ModelSpec:
        for spec in self.specs:
            if spec.name == name:
                return spec
        raise UnknownModelError(
            f"unknown model {name!r}; known models: {', '.join(self.names()) or 'none'}"
        )

    def __contains__(self, name: object) -> bool:
        return any(s.name == name for s in self.specs)

    def with_specs(self, extra: Iterable[ModelSpec]) -> Manifest:
        return Manifest((*self.specs, *extra), self.path)


def load_manifest(path: Path = MANIFEST_PATH) -> Manifest:
    """The manifest at `path`, validated; a ManifestError names the file and the entry."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"model manifest {path} is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"model manifest {path} cannot be read: {exc}") from None
    _check(isinstance(data, Mapping), str(path), "top level must be an object")
    entries = data.get("models")
    _check(isinstance(entries, list), str(path), "'models' must be a list")
    specs = tuple(spec_from_dict(e, str(path)) for e in entries)
    return Manifest(specs, path)
