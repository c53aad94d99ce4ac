"""Source faces the user can swap in: loading, errors that say why, and a content cache."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import platformdirs
from numpy.typing import NDArray

from engine.core.imageio import ImageReadError, read_image
from engine.face.analyzer import FaceAnalyzer
from engine.face.fit import FaceFitter
from engine.face.mesh import topology
from engine.swap.identity import (
    SourceIdentity,
    combine,
    forehead_skin,
    thumbnail,
    unwrap,
    vertex_colours,
)

log = logging.getLogger(__name__)

# Bump when the texture/shape algorithm changes: old cache entries are then ignored.
CACHE_VERSION = "identity-v3"
MIN_EYE_DISTANCE_PX = 24.0


class SourceFaceError(ValueError):
    """A source photo cannot be used; the message names the file and the reason."""


@dataclass(frozen=True)
class SourceFaceInfo:
    key: str
    name: str
    paths: tuple[Path, ...]
    thumbnail: NDArray[np.uint8]
    warning: str | None


def default_cache_dir() -> Path:
    override = os.environ.get("FUSECAM_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir("fusecam"))


def content_key(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256(CACHE_VERSION.encode())
    for h in sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in paths):
        digest.update(h.encode())
    return digest.hexdigest()[:32]


def _eye_distance(landmarks: NDArray[np.float32]) -> float:
    topo = topology()
    right = landmarks[topo.region("right_eye"), :2].mean(axis=0)
    left = landmarks[topo.region("left_eye"), :2].mean(axis=0)
    return float(np.linalg.norm(left - right))


class SourceLibrary:
    """Thread-safe store of loaded identities, keyed by the photos' content hash."""

    def __init__(
        self,
        analyzer: FaceAnalyzer | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self._analyzer = analyzer
        self._fitter: FaceFitter | None = None
        self._cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
        self._lock = threading.Lock()
        self._identities: dict[str, SourceIdentity] = {}

    @property
    def analyzer(self) -> FaceAnalyzer:
        if self._analyzer is None:
            self._analyzer = FaceAnalyzer.bundled()
        return self._analyzer

    # --- queries ---------------------------------------------------------------------
    def get(self, key: str | None) -> SourceIdentity | None:
        if key is None:
            return None
        with self._lock:
            return self._identities.get(key)

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._identities)

    def remove(self, key: str) -> None:
        with self._lock:
            self._identities.pop(key, None)

    # --- loading (slow: call off the GUI thread) -------------------------------------
    def load(self, paths: Sequence[Path | str]) -> SourceFaceInfo:
        identity = self.load_identity(paths)
        return SourceFaceInfo(
            identity.key, identity.name, identity.paths, identity.thumbnail, identity.warning
        )

    def load_identity(self, paths: Sequence[Path | str]) -> SourceIdentity:
        files = tuple(Path(p) for p in paths)
        if not files:
            raise SourceFaceError("no source photo given")
        for p in files:
            if not p.is_file():
                raise SourceFaceError(f"{p}: no such file")
        try:
            key = content_key(files)
        except OSError as exc:
            raise SourceFaceError(f"{files[0]}: cannot read ({exc.strerror or exc})") from exc
        known = self.get(key)
        if known is not None:
            return known
        identity = self._read_cache(key, files) or self._build(key, files)
        with self._lock:
            self._identities[key] = identity
        return identity

    def _skin_ids(self) -> NDArray[np.int64]:
        if self._fitter is None:
            self._fitter = FaceFitter()
        return self._fitter.skin_ids

    def _build(self, key: str, files: tuple[Path, ...]) -> SourceIdentity:
        if self._fitter is None:
            self._fitter = FaceFitter()
        photos, images, landmarks, warnings = [], [], [], []
        for path in files:
            try:
                image = read_image(path)
            except ImageReadError as exc:
                raise SourceFaceError(f"{path}: unreadable image ({exc})") from exc
            faces = self.analyzer.analyze_image(image)
            if not faces:
                raise SourceFaceError(f"{path}: no face found")
            face = faces[0]
            assert face.landmarks is not None
            eyes = _eye_distance(face.landmarks)
            if eyes < MIN_EYE_DISTANCE_PX:
                raise SourceFaceError(
                    f"{path}: face too small ({eyes:.0f} px between the eyes; "
                    f"at least {MIN_EYE_DISTANCE_PX:.0f} px needed)"
                )
            if len(faces) > 1:
                warnings.append(f"{path.name}: {len(faces)} faces found; using the main one")
            photos.append(unwrap(image, face.landmarks, self._fitter))
            images.append(image)
            landmarks.append(face.landmarks)
        albedo, canonical = combine(photos)
        vertex_albedo = vertex_colours(albedo)
        warning = "; ".join(warnings) or None
        if warning:
            log.warning("%s", warning)
        identity = SourceIdentity(
            key=key,
            name=files[0].stem if len(files) == 1 else f"{files[0].stem} (+{len(files) - 1})",
            paths=files,
            albedo=albedo,
            canonical=canonical,
            vertex_albedo=vertex_albedo,
            thumbnail=thumbnail(images[0], landmarks[0]),
            warning=warning,
            forehead_skin=forehead_skin(albedo, vertex_albedo, self._skin_ids()),
            images=tuple(images),
            landmarks=tuple(landmarks),
        )
        self._write_cache(identity)
        return identity

    # --- disk cache ------------------------------------------------------------------
    def _cache_file(self, key: str) -> Path:
        return self._cache_dir / "sources" / f"{key}.npz"

    def _write_cache(self, identity: SourceIdentity) -> None:
        path = self._cache_file(identity.key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".part.npz")
            np.savez(
                tmp,
                albedo=identity.albedo.astype(np.float16),
                canonical=identity.canonical,
                thumbnail=identity.thumbnail,
                landmarks=np.stack(identity.landmarks),
                meta=np.array(json.dumps({"name": identity.name, "warning": identity.warning})),
            )
            tmp.replace(path)
        except OSError as exc:
            # A full disk or read-only cache costs speed next time, nothing else.
            log.warning("could not cache source face %s: %s", identity.name, exc)

    def _read_cache(self, key: str, files: tuple[Path, ...]) -> SourceIdentity | None:
        path = self._cache_file(key)
        if not path.is_file():
            return None
        try:
            with np.load(path) as data:
                meta = json.loads(str(data["meta"]))
                albedo = data["albedo"].astype(np.float32)
                vertex_albedo = vertex_colours(albedo)
                landmarks = tuple(data["landmarks"].astype(np.float32))
                identity = SourceIdentity(
                    key=key,
                    name=meta["name"],
                    paths=files,
                    albedo=albedo,
                    canonical=data["canonical"].astype(np.float32),
                    vertex_albedo=vertex_albedo,
                    thumbnail=data["thumbnail"].astype(np.uint8),
                    warning=meta["warning"],
                    forehead_skin=forehead_skin(albedo, vertex_albedo, self._skin_ids()),
                    images=tuple(read_image(p) for p in files),
                    landmarks=landmarks,
                )
        except Exception as exc:  # a damaged entry fails in many ways (zip, pickle, EOF…)
            log.warning(
                "rebuilding source face %s: its cache entry is unreadable (%s)",
                files[0].name,
                exc.__class__.__name__,
            )
            return None
        return identity
