"""Reading and writing images with errors that name the file and the reason."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from engine.core.types import Frame

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})


class ImageReadError(ValueError):
    """An image file is missing, unreadable or not an image."""


class ImageWriteError(OSError):
    """An image could not be written (bad path, unknown format, full disk)."""


def read_image(path: str | Path) -> Frame:
    """Read a file as a 3-channel BGR uint8 frame (grey and alpha images are converted)."""
    p = Path(path)
    if not p.exists():
        raise ImageReadError(f"{p}: no such file")
    if not p.is_file():
        raise ImageReadError(f"{p}: not a file")
    try:
        data = np.fromfile(p, dtype=np.uint8)
    except OSError as exc:
        raise ImageReadError(f"{p}: cannot read ({exc.strerror or exc})") from exc
    image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data.size else None
    if image is None:
        raise ImageReadError(f"{p}: not a readable image")
    return to_bgr(image)


def to_bgr(image: np.ndarray) -> Frame:
    """Normalise grey, BGRA and 16-bit images to 3-channel BGR uint8."""
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        else:
            image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(image[:, :, :3])


def write_image(path: str | Path, frame: Frame) -> None:
    p = Path(path)
    suffix = p.suffix.lower() or ".png"
    if suffix not in IMAGE_SUFFIXES:
        raise ImageWriteError(f"{p}: unknown image format {suffix!r}")
    ok, encoded = cv2.imencode(suffix, frame)
    if not ok:
        raise ImageWriteError(f"{p}: could not encode as {suffix}")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".part")
        encoded.tofile(tmp)
        tmp.replace(p)
    except OSError as exc:
        raise ImageWriteError(f"{p}: cannot write ({exc.strerror or exc})") from exc
