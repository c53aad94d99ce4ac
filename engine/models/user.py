"""Models the user supplies by path (e.g. a GFPGAN ONNX they converted themselves).

No publisher states a SHA-256 for such files, so nothing is pinned: the hash recorded at
registration only detects later changes. They are always reported as "user supplied,
unverified". The registry is a small JSON file in the user's models folder.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.core.atomic import describe_os_error, write_bytes_atomic
from engine.models.errors import ManifestError, ModelError
from engine.models.hashing import sha256_file
from engine.models.manifest import Manifest, ModelSpec

USER_REGISTRY = "user_models.json"
# Raises SignatureError when a file does not run as the family (engine.neural.signature:
# the model families are built on this package, so the check is handed in, not imported).
SignatureCheck = Callable[[Path, str], None]
USER_LICENCE = "unknown (user supplied)"
USER_NOTICE = (
    "User-supplied model: Fusecam did not download this file and cannot check where it "
    "came from. Its licence is whatever its publisher set (GFPGAN code is Apache-2.0; "
    "check the weights' own terms)."
)


def _entry_to_spec(entry: Any, registry: Path) -> ModelSpec:
    try:
        path = Path(str(entry["path"]))
        return ModelSpec(
            name=str(entry["name"]),
            file=path.name,
            sha256=str(entry["sha256"]),
            size_bytes=int(entry["size_bytes"]),
            licence=USER_LICENCE,
            notice=USER_NOTICE,
            family=str(entry["family"]),
            source=f"registered by the user from {path}",
            user_supplied=True,
            local_path=path,
            raw=dict(entry),
        )
    except (KeyError, TypeError, ValueError, ManifestError) as exc:
        raise ManifestError(f"{registry}: bad user model entry {entry!r}: {exc}") from None


def _read(registry: Path) -> list[Any]:
    """The registry's entries as stored; ManifestError when the file cannot be one."""
    if not registry.is_file():
        return []
    try:
        data = json.loads(registry.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise ManifestError(f"user model registry {registry} cannot be read: {exc}") from None
    entries = data.get("models") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ManifestError(f"user model registry {registry}: 'models' must be a list")
    return entries


def read_user_specs(registry: Path) -> tuple[tuple[ModelSpec, ...], tuple[str, ...]]:
    """The registered models that can be used, and what is wrong with the rest. A damaged
    registry never stops the manifest's own models from working (`models list`, the
    app); it is left as it is for the user to fix, and `register` refuses to write over it."""
    try:
        entries = _read(registry)
    except ManifestError as exc:
        return (), (f"{exc}; your registered models are ignored until it is fixed or removed",)
    specs: list[ModelSpec] = []
    problems: list[str] = []
    for entry in entries:
        try:
            specs.append(_entry_to_spec(entry, registry))
        except ManifestError as exc:
            problems.append(f"{exc} (ignored)")
    return tuple(specs), tuple(problems)


def load_user_specs(registry: Path) -> tuple[ModelSpec, ...]:
    return read_user_specs(registry)[0]


def unchanged_since_registration(spec: ModelSpec) -> bool:
    """True when a user-supplied file still has the size and mtime it was registered with."""
    if spec.local_path is None:
        return False
    try:
        stat = spec.local_path.stat()
    except OSError:
        return False
    return bool(
        spec.raw.get("size_bytes") == stat.st_size and spec.raw.get("mtime_ns") == stat.st_mtime_ns
    )


def default_user_name(path: Path) -> str:
    stem = re.sub(r"[^a-z0-9_.-]+", "-", path.stem.lower()).strip("-.") or "model"
    return f"user-{stem}"[:64]


def register_user_model(
    manifest: Manifest,
    models_dir: Path,
    path: Path,
    family: str,
    name: str | None = None,
    *,
    check: SignatureCheck,
) -> ModelSpec:
    """Check `path` fits `family`'s signature, record its hash, and make it resolvable."""
    path = path.expanduser().resolve()
    if not path.is_file():
        raise ModelError(f"{path}: no such model file")
    name = name or default_user_name(path)
    if name in manifest and not manifest.get(name).user_supplied:
        raise ModelError(f"name {name!r} belongs to a manifest model; choose another --name")
    check(path, family)
    digest = sha256_file(path)
    entry = {
        "name": name,
        "path": str(path),
        "family": family,
        "sha256": digest,
        "size_bytes": path.stat().st_size,
        # Size and mtime let later starts trust the file without hashing it again, and
        # nothing is written beside the user's own file.
        "mtime_ns": path.stat().st_mtime_ns,
        "registered": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    registry = models_dir / USER_REGISTRY
    spec = _entry_to_spec(entry, registry)  # validates before anything is written
    entries = [e for e in _read(registry) if not _named(e, name)]
    entries.append(entry)
    _write(registry, entries)
    return spec


def _named(entry: Any, name: str) -> bool:
    return isinstance(entry, dict) and entry.get("name") == name


def _write(registry: Path, entries: list[Any]) -> None:
    text = json.dumps({"models": entries}, indent=2) + "\n"
    try:
        write_bytes_atomic(registry, text.encode("utf-8"))
    except OSError as exc:
        raise ModelError(f"cannot write {registry} ({describe_os_error(exc)})") from None


def unregister_user_model(models_dir: Path, name: str) -> bool:
    registry = models_dir / USER_REGISTRY
    entries = _read(registry)
    kept = [e for e in entries if not _named(e, name)]
    if len(kept) == len(entries):
        return False
    _write(registry, kept)
    return True
