"""Model manager: manifest, on-disk store, verified downloads, user-supplied models, and
the onnxruntime sessions they run in (engine.models.onnx). `fusecam models` drives it:

    store = ModelStore()                       # manifest + user folder
    store.list_status()                        # [ModelStatus(spec, path, state, ...)]
    store.requirements("inswapper_128")        # specs to fetch, dependencies first
    download_model(store, name, accept_licence=True, progress=cb, cancel=event.is_set)
    store.resolve(name)                        # checked Path, or a typed error
"""

from engine.models.download import (
    DownloadResult,
    download_missing,
    download_model,
    needs_licence_acceptance,
)
from engine.models.errors import (
    ChecksumMismatch,
    DownloadCancelled,
    DownloadError,
    LicenceNotAccepted,
    ManifestError,
    ModelCorruptError,
    ModelError,
    ModelMissingError,
    SignatureError,
    UnknownModelError,
)
from engine.models.manifest import FAMILIES, Manifest, ModelSpec, load_manifest
from engine.models.store import ModelState, ModelStatus, ModelStore, default_data_dir

__all__ = [
    "FAMILIES",
    "ChecksumMismatch",
    "DownloadCancelled",
    "DownloadError",
    "DownloadResult",
    "LicenceNotAccepted",
    "Manifest",
    "ManifestError",
    "ModelCorruptError",
    "ModelError",
    "ModelMissingError",
    "ModelSpec",
    "ModelState",
    "ModelStatus",
    "ModelStore",
    "SignatureError",
    "UnknownModelError",
    "default_data_dir",
    "download_missing",
    "download_model",
    "load_manifest",
    "needs_licence_acceptance",
]
