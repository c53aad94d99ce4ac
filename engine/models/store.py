"""Where model files live, what state each is in, and resolving a name to a checked path.

Bundled models sit in the repository's models/ folder; downloaded ones in the user's data
folder (platformdirs, or $FUSECAM_DATA_DIR), user-supplied ones wherever the user keeps
them. Nothing here touches the network.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from engine.core.paths import MODELS_DIR
from engine.models.errors import ModelCorruptError, ModelError, ModelMissingError
from engine.models.hashing import (
    CancelCheck,
    ProgressCallback,
    clear_stamp,
    sha256_file,
    stamp_matches,
    stamp_path,
    write_stamp,
)
from engine.models.manifest import MANIFEST_PATH, Manifest, ModelSpec, load_manifest
from engine.models.user import (
    USER_REGISTRY,
    SignatureCheck,
    load_user_specs,
    read_user_specs,
    register_user_model,
    unchanged_since_registration,
    unregister_user_model,
)

DATA_DIR_ENV = "FUSECAM_DATA_DIR"

ModelState = Literal["ready", "unverified", "missing", "partial", "corrupt"]


def default_data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_data_dir("fusecam", appauthor=False))


@dataclass(frozen=True, slots=True)
class ModelStatus:
    spec: ModelSpec
    path: Path
    state: ModelState  # "unverified": present, not hashed yet (hashing happens on use)
    size_on_disk: int = 0
    part_bytes: int = 0  # bytes of an interrupted download waiting to resume
    detail: str = ""

    @property
    def available(self) -> bool:
        return self.state in ("ready", "unverified")

    @property
    def label(self) -> str:
        text = {
            "ready": "bundled" if self.spec.bundled else "ready",
            "unverified": "present (not verified yet)",
            "missing": "not downloaded",
            "partial": f"partly downloaded ({self.part_bytes} bytes)",
            "corrupt": "hash mismatch",
        }[self.state]
        if self.spec.user_supplied:
            text += " — user supplied, unverified"
        return text


class ModelStore:
    """The models this installation knows, where their files are and whether they are good."""

    def __init__(
        self,
        manifest: Manifest | None = None,
        *,
        data_dir: Path | None = None,
        bundled_dir: Path = MODELS_DIR,
        manifest_path: Path = MANIFEST_PATH,
    ) -> None:
        self.data_dir = data_dir if data_dir is not None else default_data_dir()
        self.models_dir = self.data_dir / "models"
        self.bundled_dir = bundled_dir
        self._manifest = manifest if manifest is not None else load_manifest(manifest_path)

    # --- what is known ----------------------------------------------------------------
    @property
    def manifest(self) -> Manifest:
        """The repository manifest plus the user's registered models (re-read each call)."""
        return self._manifest.with_specs(load_user_specs(self.user_registry))

    @property
    def user_registry(self) -> Path:
        return self.models_dir / USER_REGISTRY

    def registry_problems(self) -> tuple[str, ...]:
        """What is wrong with the user's model registry (its bad entries are skipped)."""
        return read_user_specs(self.user_registry)[1]

    def spec(self, name: str) -> ModelSpec:
        return self.manifest.get(name)

    def register_user_model(
        self, path: Path, family: str, name: str | None = None, *, check: SignatureCheck
    ) -> ModelSpec:
        """Record a model file the user supplies (engine.neural.signature checks it first)."""
        return register_user_model(self.manifest, self.models_dir, path, family, name, check=check)

    def unregister_user_model(self, name: str) -> bool:
        return unregister_user_model(self.models_dir, name)

    def remove_download(self, name: str) -> bool:
        """Delete a downloaded model's file (and its stamp and partial download); bundled
        and user-supplied files are never touched. False when there was nothing to delete."""
        spec = self.spec(name)
        if spec.bundled or spec.user_supplied:
            raise ModelError(f"model {name!r} is not a download; nothing was deleted")
        path = self.path_of(spec)
        found = path.is_file() or self.part_path(spec).is_file()
        for leftover in (path, stamp_path(path), self.part_path(spec)):
            leftover.unlink(missing_ok=True)  # an OSError (permissions) reaches the caller
        return found

    def requirements(self, name: str) -> list[ModelSpec]:
        """`name` and everything it needs, dependencies first, each once."""
        manifest = self.manifest
        ordered: list[ModelSpec] = []

        def visit(spec: ModelSpec, trail: tuple[str, ...]) -> None:
            if spec.name in trail or spec in ordered:
                return
            for dep in spec.requires:
                visit(manifest.get(dep), (*trail, spec.name))
            ordered.append(spec)

        visit(manifest.get(name), ())
        return ordered

    # --- where files are ---------------------------------------------------------------
    def path_of(self, spec: ModelSpec) -> Path:
        if spec.local_path is not None:
            return spec.local_path
        return (self.bundled_dir if spec.bundled else self.models_dir) / spec.file

    def path(self, name: str) -> Path:
        return self.path_of(self.spec(name))

    def part_path(self, spec: ModelSpec) -> Path:
        return self.models_dir / (spec.file + ".part")

    # --- state -------------------------------------------------------------------------
    def status(self, name: str) -> ModelStatus:
        """Cheap state from the file system (no hashing of unverified files)."""
        return self.status_of(self.spec(name))

    def status_of(self, spec: ModelSpec) -> ModelStatus:
        path = self.path_of(spec)
        part = self.part_path(spec)
        part_bytes = part.stat().st_size if part.is_file() else 0
        if not path.is_file():
            state: ModelState = "partial" if part_bytes else "missing"
            return ModelStatus(spec, path, state, 0, part_bytes)
        size = path.stat().st_size
        trusted = self._trusted(spec, path)
        return ModelStatus(spec, path, "ready" if trusted else "unverified", size, part_bytes)

    @staticmethod
    def _trusted(spec: ModelSpec, path: Path) -> bool:
        """Whether the file can be used without hashing it now."""
        if spec.bundled:
            return True  # small and checked in with the repository; `verify` hashes them
        if spec.user_supplied:
            return unchanged_since_registration(spec)
        return stamp_matches(path, spec.sha256)

    def list_status(self) -> list[ModelStatus]:
        return [self.status_of(spec) for spec in self.manifest.specs]

    def verify(
        self,
        name: str,
        progress: ProgressCallback | None = None,
        cancel: CancelCheck | None = None,
    ) -> ModelStatus:
        """Hash the file now; "ready" on a match (stamped), "corrupt" with both hashes if not."""
        spec = self.spec(name)
        path = self.path_of(spec)
        if not path.is_file():
            return self.status_of(spec)
        actual = sha256_file(path, progress, cancel)
        size = path.stat().st_size
        # Stamps only in our own folder: never beside bundled or user-supplied files.
        ours = not spec.bundled and not spec.user_supplied
        if actual == spec.sha256:
            if ours:
                write_stamp(path, actual)
            return ModelStatus(spec, path, "ready", size)
        if ours:
            clear_stamp(path)
        detail = f"SHA-256 is {actual}, expected {spec.sha256}"
        return ModelStatus(spec, path, "corrupt", size, detail=detail)

    def resolve(self, name: str) -> Path:
        """The checked path of `name`, or ModelMissingError / ModelCorruptError saying how to
        get it. A file placed by hand is accepted when its hash matches (hashed once)."""
        spec = self.spec(name)
        path = self.path_of(spec)
        if not path.is_file():
            raise ModelMissingError(name, self._missing_message(spec, path))
        if self._trusted(spec, path):
            return path
        status = self.verify(name)
        if status.state != "ready":
            raise ModelCorruptError(name, self._corrupt_message(spec, path, status.detail))
        return path

    def recheck(self, name: str, failure: BaseException) -> ModelCorruptError | None:
        """After `name`'s file failed to load: hash it again, whatever its stamp says (a
        file zeroed in place keeps its size and time). The error to raise when it is not
        the pinned file, naming the command that replaces it; None when it is."""
        spec = self.spec(name)
        path = self.path_of(spec)
        status = self.verify(name)
        if status.state == "ready":
            return None
        detail = f"it failed to load ({failure}), and its {status.detail or 'file is gone'}"
        return ModelCorruptError(name, self._corrupt_message(spec, path, detail))

    def _missing_message(self, spec: ModelSpec, path: Path) -> str:
        if spec.bundled:
            return (
                f"model {spec.name!r}: bundled file {path} is missing; "
                "reinstall Fusecam or restore the models/ folder"
            )
        if spec.user_supplied:
            return (
                f"model {spec.name!r}: user-supplied file {path} is missing; register it "
                f"again with `fusecam models add PATH --family {spec.family}`"
            )
        how = (
            f"run `fusecam models download {spec.name}`"
            if spec.downloadable
            else "no download URL is known"
        )
        return (
            f"model {spec.name!r} is not downloaded: {how}, or place {spec.file} "
            f"(SHA-256 {spec.sha256}) in {self.models_dir}"
        )

    def _corrupt_message(self, spec: ModelSpec, path: Path, detail: str) -> str:
        if spec.bundled:
            return (
                f"model {spec.name!r}: bundled file {path} is damaged ({detail}); "
                "reinstall Fusecam or restore the models/ folder"
            )
        if spec.user_supplied:
            return (
                f"model {spec.name!r}: {path} changed since it was registered ({detail}); "
                "register it again with `fusecam models add`"
            )
        return (
            f"model {spec.name!r}: {path} is not the expected file ({detail}); "
            f"run `fusecam models download {spec.name}` to replace it"
        )
