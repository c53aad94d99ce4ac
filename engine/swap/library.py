"""Source faces the user can swap in: loading, errors that say why, and a content cache."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs
from numpy.typing import NDArray

from engine.core.imageio import ImageReadError, read_image
from engine.core.settings import ExecutionProvider
from engine.core.types import F32, Frame, Landmarks
from engine.face.analyzer import FaceAnalyzer
from engine.face.fit import FaceFitter
from engine.face.mesh import topology
from engine.render.uvmap import uv_map
from engine.swap.hair import skin_mask
from engine.swap.identity import (
    SourceIdentity,
    combine,
    thumbnail,
    unwrap,
    vertex_colours,
)
from engine.swap.mouth import mouth_interior

log = logging.getLogger(__name__)

# Bump when the texture/shape algorithm changes: old cache entries are then ignored.
CACHE_VERSION = "identity-v10"
MIN_EYE_DISTANCE_PX = 24.0
MESH_POINTS = 468


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
        provider: ExecutionProvider = "auto",
    ) -> None:
        """`analyzer`: the face models to read photos with; without one, the bundled
        models on `provider` load the first time they are needed."""
        self._analyzer = analyzer
        self._provider: ExecutionProvider = provider
        # The models load once, whichever thread asks first (a photo on the app's faces
        # thread, the face stages' loader): the other waits for the same set.
        self._analyzer_lock = threading.Lock()
        self._fitter: FaceFitter | None = None
        self._cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
        self._lock = threading.Lock()
        self._identities: dict[str, SourceIdentity] = {}

    @property
    def analyzer(self) -> FaceAnalyzer:
        """The face models (loaded now if they are not yet: slow, never on the GUI or
        the engine thread)."""
        with self._analyzer_lock:
            if self._analyzer is None:
                self._analyzer = FaceAnalyzer.bundled(self._provider)
            return self._analyzer

    @property
    def analyzer_loaded(self) -> bool:
        return self._analyzer is not None

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
        # Made here, off the engine thread: its mouth fill and beard take tens of ms,
        # which the first swapped frame would otherwise wait for (the default variant);
        # so do its skin's departures and its eyeballs (another 10-20 ms).
        _ = identity.texture(), identity.skin, identity.eyeballs, identity.iris_colour
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
        albedo, canonical, colour = combine(photos)
        warning = "; ".join(warnings) or None
        if warning:
            log.warning("%s", warning)
        identity = self._assemble(
            key,
            files,
            # Stored as float16 on disk: quantised now too, so that a fresh build and a
            # cached one swap exactly alike.
            albedo=albedo.astype(np.float16).astype(np.float32),
            canonical=canonical,
            colour=colour,
            thumb=thumbnail(images[0], landmarks[0]),
            name=files[0].stem if len(files) == 1 else f"{files[0].stem} (+{len(files) - 1})",
            warning=warning,
            images=tuple(images),
            landmarks=tuple(landmarks),
        )
        self._write_cache(identity)
        return identity

    def _assemble(
        self,
        key: str,
        files: tuple[Path, ...],
        *,
        albedo: F32,
        canonical: F32,
        colour: F32,
        thumb: NDArray[np.uint8],
        name: str,
        warning: str | None,
        images: tuple[Frame, ...],
        landmarks: tuple[Landmarks, ...],
    ) -> SourceIdentity:
        """The identity from its stored parts (what a build and the cache share)."""
        vertex_albedo = vertex_colours(albedo)
        return SourceIdentity(
            key=key,
            name=name,
            paths=files,
            albedo=albedo,
            canonical=canonical,
            vertex_albedo=vertex_albedo,
            thumbnail=thumb,
            skin_colour=colour,
            warning=warning,
            forehead_skin=skin_mask(albedo, vertex_albedo, self._skin_ids()),
            mouth_inside=np.max(
                [
                    mouth_interior(image, lm, albedo.shape[0])
                    for image, lm in zip(images, landmarks, strict=True)
                ],
                axis=0,
            ),
            images=images,
            landmarks=landmarks,
        )

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
                skin_colour=identity.skin_colour,
                thumbnail=identity.thumbnail,
                landmarks=np.stack(identity.landmarks),
                meta=np.array(
                    json.dumps(
                        {
                            "name": identity.name,
                            "warning": identity.warning,
                            "version": CACHE_VERSION,
                        }
                    )
                ),
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
            with np.load(path, allow_pickle=False) as data:
                parts = _checked_entry(data, len(files))
            meta = json.loads(parts.meta)
            return self._assemble(
                key,
                files,
                albedo=parts.albedo,
                canonical=parts.canonical,
                colour=parts.skin_colour,
                thumb=parts.thumbnail,
                name=str(meta["name"]),
                warning=meta["warning"],
                images=tuple(read_image(p) for p in files),
                landmarks=tuple(parts.landmarks),
            )
        except Exception as exc:  # a damaged entry fails in many ways (zip, EOF, json…)
            log.warning(
                "rebuilding source face %s: its cache entry is unusable (%s)",
                files[0].name,
                exc,
            )
            return None


class CacheEntryError(ValueError):
    """A cache entry that loads but cannot be trusted (wrong shape, NaN, old version)."""


@dataclass(frozen=True)
class _CacheParts:
    albedo: F32
    canonical: F32
    skin_colour: F32
    thumbnail: NDArray[np.uint8]
    landmarks: F32
    meta: str


def _checked_entry(data: Mapping[str, NDArray[Any]], photos: int) -> _CacheParts:
    """The entry's arrays, each checked for shape, type and finite values."""
    size = uv_map().size
    meta = str(data["meta"])
    if json.loads(meta).get("version") != CACHE_VERSION:
        raise CacheEntryError("written by another version")
    albedo = data["albedo"].astype(np.float32)
    canonical = data["canonical"].astype(np.float32)
    colour = data["skin_colour"].astype(np.float32)
    landmarks = data["landmarks"].astype(np.float32)
    thumb = data["thumbnail"]
    expected = {
        "albedo": (albedo.shape, (size, size, 3)),
        "canonical": (canonical.shape, (MESH_POINTS, 3)),
        "skin_colour": (colour.shape, (3,)),
        "landmarks": (landmarks.shape, (photos, MESH_POINTS, 3)),
        "thumbnail": (thumb.shape[2:], (3,)),
    }
    for name, (shape, wanted) in expected.items():
        if shape != wanted:
            raise CacheEntryError(f"{name} has shape {shape}, expected {wanted}")
    if thumb.dtype != np.uint8:
        raise CacheEntryError(f"thumbnail is {thumb.dtype}, expected uint8")
    arrays = {"albedo": albedo, "canonical": canonical, "skin_colour": colour}
    for name, values in {**arrays, "landmarks": landmarks}.items():
        if not np.isfinite(values).all():
            raise CacheEntryError(f"{name} holds non-finite values")
    if albedo.min() < 0.0 or albedo.max() > 4096.0:
        raise CacheEntryError("albedo is out of range")
    return _CacheParts(albedo, canonical, colour, thumb, landmarks, meta)
