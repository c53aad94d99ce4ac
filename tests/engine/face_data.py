"""Real faces for the face-analysis tests: the bundled public-domain portraits (always
present) and the single-person photos of ../shared/testdata (when it is there)."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.types import Frame
from engine.face.mesh import topology

REPO_ROOT = Path(__file__).resolve().parents[2]
TESTDATA_DIR = REPO_ROOT.parent / "shared" / "testdata"
GROUP_PHOTO = "faces/group_insightface_1.jpg"
OBAMA_VIDEO = "video/obama_1.mp4"

BUNDLED = (
    SAMPLE_FACES_DIR / "grace_hopper.jpg",
    SAMPLE_FACES_DIR / "astronaut_eileen_collins.png",
)
_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def shared_single_person_photos() -> list[Path]:
    """Image files of ../shared/testdata whose MANIFEST identity names one person."""
    manifest = TESTDATA_DIR / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [
        TESTDATA_DIR / row["file"]
        for row in rows
        if row["file"].lower().endswith(_IMAGE_SUFFIXES) and ";" not in row["identity"]
    ]


def single_person_params() -> list[object]:
    """pytest params: bundled portraits (run everywhere) + test-data photos (marked)."""
    bundled = [pytest.param(p, id=f"bundled/{p.name}") for p in BUNDLED]
    shared = [
        pytest.param(p, id=p.relative_to(TESTDATA_DIR).as_posix(), marks=pytest.mark.testdata)
        for p in shared_single_person_photos()
    ]
    return [*bundled, *shared]


def searched(packet: FramePacket) -> bool:
    """The face stage ran the detector in this frame, on its own thread: its profile
    holds the finder's "detect" step or the "redetect" after every track was lost. The
    packet needs a `StepTimer`; a stage run outside the engine records steps unprefixed."""
    assert packet.steps.enabled, "give the packet a StepTimer"
    return bool({"detect", "redetect"} & packet.steps.times_ms.keys())


def load(path: Path) -> Frame:
    return read_image(path)


def eye_centres(points: NDArray[np.floating]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(subject's right, left) eye centres: means of the mesh's eye contours."""
    topo = topology()
    p = np.asarray(points, dtype=np.float64)[:, :2]
    return p[topo.region("right_eye")].mean(axis=0), p[topo.region("left_eye")].mean(axis=0)


def inter_ocular(points: NDArray[np.floating]) -> float:
    right, left = eye_centres(points)
    return float(np.linalg.norm(left - right))


def paste(canvas: Frame, image: Frame, x0: int, y0: int) -> Frame:
    """A copy of `canvas` with `image` placed at (x0, y0) (must fit)."""
    out = canvas.copy()
    h, w = image.shape[:2]
    out[y0 : y0 + h, x0 : x0 + w] = image
    return out


def scaled(image: Frame, factor: float) -> Frame:
    interp = cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR
    return cv2.resize(image, None, fx=factor, fy=factor, interpolation=interp)


def rotated(image: Frame, angle_deg: float) -> tuple[Frame, NDArray[np.float64]]:
    """The image turned by cv2's `angle_deg` (counter-clockwise on screen) about its centre
    on a canvas large enough to keep every corner, and the 2×3 map old → new pixels."""
    h, w = image.shape[:2]
    side = int(np.ceil(np.hypot(h, w)))
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    m[:, 2] += ((side - w) / 2, (side - h) / 2)
    out = cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    return out, m
