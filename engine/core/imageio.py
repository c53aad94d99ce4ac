"""Reading and writing images with errors that name the file and the reason.

Images are read upright (their EXIF orientation applied, engine.core.exif), and
`read_picture` keeps what the file holds beyond 8-bit colour — alpha, 16 bits per
channel — for an output that can hold it too (engine.core.picture).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.core.atomic import AtomicFile, describe_os_error
from engine.core.exif import orientation, upright
from engine.core.imagesize import FrameSizeError, HeaderError, check_frame_size, header_size
from engine.core.types import Frame

# Enough for every header `engine.core.imagesize` reads except TIFF's, whose first
# directory may follow the pixel data (the whole file is in memory here anyway).
_HEADER_BYTES = 1 << 16
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})


class ImageReadError(ValueError):
    """An image file is missing, unreadable or not an image."""


class ImageWriteError(OSError):
    """An image could not be written (bad path, unknown format, full disk)."""


@dataclass(frozen=True, slots=True)
class Picture:
    """An image file's pixels as decoded (grey, BGR or BGRA; 8, 16 bits or float), upright."""

    pixels: np.ndarray
    orientation: int = 1  # the EXIF orientation that was applied (1: none)

    @property
    def frame(self) -> Frame:
        return to_bgr(self.pixels)

    @property
    def alpha(self) -> np.ndarray | None:
        has = self.pixels.ndim == 3 and self.pixels.shape[2] == 4
        return self.pixels[:, :, 3] if has else None


def read_image(path: str | Path) -> Frame:
    """Read a file as a 3-channel BGR uint8 frame (grey and alpha images are converted),
    upright."""
    return read_picture(path).frame


def read_picture(path: str | Path) -> Picture:
    """Read a file as it is (alpha and depth kept), turned by its EXIF orientation."""
    p = Path(path)
    if not p.exists():
        raise ImageReadError(f"{p}: no such file")
    if not p.is_file():
        raise ImageReadError(f"{p}: not a file")
    try:
        data = np.fromfile(p, dtype=np.uint8)
    except OSError as exc:
        raise ImageReadError(f"{p}: cannot read ({exc.strerror or exc})") from exc
    try:
        # The size the header declares, checked before a single pixel is decoded.
        tiff = data[:2].tobytes() in (b"II", b"MM")
        header = data.tobytes() if tiff else data[:_HEADER_BYTES].tobytes()
        size = header_size(header)
        if size is not None:
            check_frame_size(*size, str(p))
        image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data.size else None
    except HeaderError as exc:
        raise ImageReadError(f"{p}: not a readable image ({exc})") from None
    except FrameSizeError as exc:
        raise ImageReadError(str(exc)) from None
    except cv2.error as exc:  # a format without a header check here, over OpenCV's limits
        raise ImageReadError(f"{p}: not a readable image ({exc.err})") from None
    if image is None:
        raise ImageReadError(f"{p}: not a readable image")
    try:
        check_frame_size(image.shape[1], image.shape[0], str(p))
    except FrameSizeError as exc:
        raise ImageReadError(str(exc)) from None
    turn = orientation(header)
    return Picture(upright(image, turn), turn)


def to_uint8(image: np.ndarray) -> np.ndarray:
    """8 bits per channel. Float images (float TIFF, EXR) hold 0..1 by convention; a
    float image whose values reach past 1 is taken as 0..255."""
    if image.dtype == np.uint8:
        return image
    if image.dtype == np.uint16:
        return (image >> 8).astype(np.uint8)
    if image.dtype.kind == "f":
        values = np.nan_to_num(image.astype(np.float32), nan=0.0, posinf=0.0, neginf=0.0)
        if float(values.max(initial=0.0)) <= 1.0:
            values = values * 255.0
        return np.clip(values + 0.5, 0, 255).astype(np.uint8)
    return np.clip(image, 0, 255).astype(np.uint8)


def to_bgr(image: np.ndarray) -> Frame:
    """Normalise grey, BGRA, 16-bit and float images to 3-channel BGR uint8."""
    image = to_uint8(image)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(image[:, :, :3])


def write_image(path: str | Path, frame: np.ndarray) -> None:
    """Encode, write under a temporary name, check, rename: `path` holds either the whole
    new image or what it held before, never a cut-off file. `frame` is BGR or BGRA, 8
    or 16 bits (engine.core.picture says which formats take what)."""
    p = Path(path)
    suffix = p.suffix.lower() or ".png"
    if suffix not in IMAGE_SUFFIXES:
        raise ImageWriteError(f"{p}: unknown image format {suffix!r}")
    ok, encoded = cv2.imencode(suffix, frame)
    if not ok:
        raise ImageWriteError(f"{p}: could not encode as {suffix}")
    data = encoded.tobytes()
    try:
        with AtomicFile(p) as target:
            target.write_bytes(data)
            if target.temp.read_bytes() != data:
                raise ImageWriteError(f"{p}: the written file does not read back as written")
            target.commit()
    except ImageWriteError:
        raise
    except OSError as exc:
        raise ImageWriteError(f"{p}: cannot write ({describe_os_error(exc)})") from exc
