"""Helpers shared by the built-in swap tests (test_swap_*.py); this module holds no tests.

Everything here uses the real bundled models (BlazeFace + face mesh on onnxruntime CPU),
the real fitter, renderer and compositor: nothing is faked.
"""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.face_records import Face, FacePatch
from engine.core.imageio import read_image
from engine.core.packet import FramePacket
from engine.core.paths import SAMPLE_FACES_DIR
from engine.core.settings import EngineSettings
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer
from engine.face.fit import FaceFitter
from engine.face.mesh import topology
from engine.runtime.factory import build_stages
from engine.runtime.pipeline import Engine
from engine.swap.apply_light import shade
from engine.swap.library import SourceLibrary

REPO_ROOT = Path(__file__).resolve().parents[3]
FACES = SAMPLE_FACES_DIR
GRACE = FACES / "grace_hopper.jpg"  # frontal, closed mouth, glasses
EILEEN = FACES / "astronaut_eileen_collins.png"  # frontal, smiling with teeth, small face
DEV_FACES = REPO_ROOT.parent / "shared" / "testdata" / "faces"
DEV_VIDEO = REPO_ROOT.parent / "shared" / "testdata" / "video"


@cache
def analyzer() -> FaceAnalyzer:
    """One set of ONNX sessions for every swap test (they are read-only and thread-safe)."""
    return FaceAnalyzer.bundled("cpu")


@cache
def fitter() -> FaceFitter:
    return FaceFitter()


def dev(name: str) -> Path:
    return DEV_FACES / name


def fitted_face(frame: Frame, index: int = 0) -> Face:
    """The analyzer's face `index` (0 = main) of a still image, with its fit."""
    faces = analyzer().analyze_image(frame)
    assert len(faces) > index, f"expected at least {index + 1} face(s), found {len(faces)}"
    face = faces[index]
    assert face.landmarks is not None
    face.fit = fitter().fit(frame, face.landmarks)
    return face


def swap_frame(library: SourceLibrary, settings: EngineSettings, frame: Frame) -> FramePacket:
    """One still through fresh live stages (no tracking state from another image), as
    `fusecam swap` does. The input is made read-only: no stage may write into it."""
    frame = np.array(frame, copy=True)
    frame.flags.writeable = False
    engine = Engine(build_stages(settings, library=library), settings)
    packet = engine.process(FramePacket(0, time.monotonic_ns(), frame))
    assert packet.error is None, packet.error
    return packet


def patch_in_frame(
    patch: FacePatch, plane: NDArray[np.float32], shape: tuple[int, ...]
) -> NDArray[np.float32]:
    """A patch-sized plane (mask, keep_mask) placed into a zero frame-sized plane."""
    full = np.zeros(shape[:2], np.float32)
    w, h = patch.box_size
    full[patch.y0 : patch.y0 + h, patch.x0 : patch.x0 + w] = patch.on_frame_grid(plane)
    return full


def polygon_mask(points: NDArray[np.floating], shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """Pixels whose centres lie inside a polygon (frame pixel coordinates)."""
    canvas = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(canvas, [np.round(np.asarray(points)[:, :2] * 4).astype(np.int32)], 1, shift=2)
    return canvas > 0


def region_mask(face: Face, region: str, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    assert face.landmarks is not None
    return polygon_mask(face.landmarks[topology().region(region), :2], shape)


def hull_mask(face: Face, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """The convex hull of all 468 mesh points: where the face is."""
    assert face.landmarks is not None
    hull = cv2.convexHull(face.landmarks[:, :2].astype(np.float32))[:, 0, :]
    return polygon_mask(hull, shape)


def erode(mask: NDArray[np.bool_], radius: int) -> NDArray[np.bool_]:
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    return cv2.erode(mask.astype(np.uint8), kernel) > 0


def dilate(mask: NDArray[np.bool_], radius: int) -> NDArray[np.bool_]:
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    return cv2.dilate(mask.astype(np.uint8), kernel) > 0


def two_face_frame() -> Frame:
    """Grace Hopper (left, larger face) and Eileen Collins (right) side by side."""
    grace, eileen = read_image(GRACE), read_image(EILEEN)
    pad = grace.shape[0] - eileen.shape[0]
    eileen = cv2.copyMakeBorder(eileen, pad // 2, pad - pad // 2, 0, 0, cv2.BORDER_REPLICATE)
    return np.hstack([grace, eileen])


def tinted(frame: Frame, bgr_gain: tuple[float, float, float]) -> Frame:
    gain = np.asarray(bgr_gain, np.float32)
    return np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def teeth_pixels(frame: Frame, where: NDArray[np.bool_]) -> int:
    """Very bright, nearly colourless pixels (teeth; lips and skin are saturated)."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    teeth = (hsv[..., 2] > 190) & (hsv[..., 1] < 60)
    return int(teeth[where].sum())


def with_eye_gain(ratio: NDArray[np.float32], eyes: NDArray[np.float32]) -> NDArray[np.float32]:
    """`ratio` (H×W×3 gain) with the eyes' own gain over `eyes` (H×W, 0..1), as the
    render's light pass applies it per pixel (a unit albedo, so the product is the gain)."""
    height, width = eyes.shape[:2]
    unit = np.ones((height, width, 4), np.float32)
    weights = np.dstack([eyes, np.zeros_like(eyes)]).astype(np.float32)
    gained, _, _ = shade(
        unit, np.ascontiguousarray(ratio, np.float32), weights, unit[..., 0] > 0, True
    )
    return gained
