"""Typed errors of the model manager; each message names the model and how to fix it."""

from __future__ import annotations

from engine.models.onnx import ModelLoadError


class ModelError(ModelLoadError):
    """Base of every model-manager error (a ModelLoadError, so callers catching that see it)."""


class ManifestError(ModelError):
    """The manifest file is unreadable or an entry in it is invalid."""


class UnknownModelError(ModelError):
    """A model name that neither the manifest nor the user's registered models know."""


class ModelMissingError(ModelError):
    """The model's file is not on disk."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.model = name


class ModelCorruptError(ModelError):
    """The model's file is on disk but its SHA-256 differs from the pinned one."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.model = name


class DownloadError(ModelError):
    """A download could not complete; the message lists what each URL answered."""


class DownloadCancelled(DownloadError):
    """The user cancelled; the `.part` file is kept so the next download resumes."""


class LicenceNotAccepted(DownloadError):
    """The caller did not confirm that the user saw the model's licence notice."""


class ChecksumMismatch(DownloadError):
    """The downloaded bytes hash to something other than the pinned SHA-256 (file deleted)."""


class SignatureError(ModelError):
    """A model's inputs/outputs do not match what its family needs."""
