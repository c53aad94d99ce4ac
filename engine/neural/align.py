"""Face alignment for the neural models: 5 points from our mesh, templates, crops, paste-back.

ArcFace-family models (recognition, inswapper) and GFPGAN-family restorers were trained on
faces aligned by a similarity transform of five points (eye centres, nose tip, mouth
corners) onto a fixed template; we take those points from the 468-point mesh instead of
running another detector.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32, Affine

# MediaPipe mesh eye contours. The "right" eye is the subject's right, which is on the
# image's left in an unmirrored photo, i.e. the template's first point.
MESH_RIGHT_EYE = (33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246)
MESH_LEFT_EYE = (263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466)
# Index 4 rather than 1 (the most forward mesh point): on the DEV photos its position
# between eyes and mouth (0.48 of the way, median) matches the ArcFace template's 0.495;
# index 1 sits at 0.58, lower than the detectors' nose point the templates come from.
MESH_NOSE = 4
MESH_MOUTH = (61, 291)  # outer lip corners

# ArcFace 112×112 template (InsightFace), order: image-left eye, image-right eye, nose,
# image-left mouth corner, image-right mouth corner.
ARCFACE_112 = np.array(
    [
        [38.2946, 51.6963],
        [73.5318, 51.5014],
        [56.0252, 71.7366],
        [41.5493, 92.3655],
        [70.7299, 92.2041],
    ],
    dtype=np.float32,
)

# FFHQ 512×512 template used by GFPGAN / GPEN / CodeFormer face restoration.
FFHQ_512 = np.array(
    [
        [192.98138, 239.94708],
        [318.90277, 240.1936],
        [256.63416, 314.01935],
        [201.26117, 371.41043],
        [313.08905, 371.15118],
    ],
    dtype=np.float32,
)


def five_points_from_mesh(landmarks: NDArray[np.float32]) -> F32:
    """Eye centres (mean of each eye's contour), nose tip, mouth corners: 5×2 pixels."""
    if landmarks.ndim != 2 or landmarks.shape[0] < 468 or landmarks.shape[1] < 2:
        raise ValueError(f"need 468×2+ mesh landmarks, got shape {landmarks.shape}")
    xy = landmarks[:, :2].astype(np.float32)
    return np.stack(
        [
            xy[list(MESH_RIGHT_EYE)].mean(axis=0),
            xy[list(MESH_LEFT_EYE)].mean(axis=0),
            xy[MESH_NOSE],
            xy[MESH_MOUTH[0]],
            xy[MESH_MOUTH[1]],
        ]
    ).astype(np.float32)


def arcface_template(size: int) -> F32:
    """The template for an ArcFace-aligned crop of `size` px, in InsightFace's convention:
    multiples of 112 scale the 112 template; multiples of 128 scale it by size/128 and
    shift it 8·size/128 px right (a 112 face centred in a 128 canvas). inswapper_128 was
    trained on the latter, so its template is the 112 one plus (8, 0), not scaled."""
    if size % 112 == 0:
        return (ARCFACE_112 * (size / 112.0)).astype(np.float32)
    if size % 128 == 0:
        ratio = size / 128.0
        return (ARCFACE_112 * ratio + np.array([8.0 * ratio, 0.0], np.float32)).astype(np.float32)
    raise ValueError(f"ArcFace crops are multiples of 112 or 128 px, not {size}")


def ffhq_template(size: int) -> F32:
    return (FFHQ_512 * (size / 512.0)).astype(np.float32)


def similarity_transform(src: F32, dst: F32) -> Affine:
    """Least-squares similarity (rotation, uniform scale, translation) mapping src onto dst
    (Umeyama 1991), as a 2×3 affine. Deterministic, unlike the RANSAC estimators."""
    src64 = np.asarray(src, np.float64)
    dst64 = np.asarray(dst, np.float64)
    src_mean, dst_mean = src64.mean(axis=0), dst64.mean(axis=0)
    src_c, dst_c = src64 - src_mean, dst64 - dst_mean
    covariance = dst_c.T @ src_c / len(src64)
    u, singular, vt = np.linalg.svd(covariance)
    sign = np.ones(2)
    if np.linalg.det(u) * np.linalg.det(vt) < 0:
        sign[-1] = -1.0  # a reflection would fit better; similarity forbids it
    rotation = u @ np.diag(sign) @ vt
    variance = float((src_c**2).sum() / len(src64))
    if variance <= 1e-12:
        raise ValueError("the 5 points coincide; cannot align")
    scale = float((singular * sign).sum() / variance)
    affine = np.empty((2, 3), np.float64)
    affine[:, :2] = scale * rotation
    affine[:, 2] = dst_mean - scale * rotation @ src_mean
    return affine


def warp_crop(
    image: NDArray[np.generic], affine: Affine, size: int, *, replicate: bool = False
) -> NDArray[np.generic]:
    border = cv2.BORDER_REPLICATE if replicate else cv2.BORDER_CONSTANT
    return np.asarray(
        cv2.warpAffine(image, affine, (size, size), flags=cv2.INTER_LINEAR, borderMode=border)
    )


def back_region(
    affine: Affine, size: int, frame_shape: tuple[int, ...]
) -> tuple[int, int, int, int] | None:
    """Frame rectangle (x0, y0, x1, y1) covered by a `size` crop taken with `affine`,
    clipped to the frame; None when it falls outside."""
    inverse = cv2.invertAffineTransform(affine)
    corners = np.array([[0, 0, 1], [size, 0, 1], [0, size, 1], [size, size, 1]], np.float64)
    points = corners @ inverse.T
    height, width = frame_shape[:2]
    x0 = max(0, int(np.floor(points[:, 0].min())))
    y0 = max(0, int(np.floor(points[:, 1].min())))
    x1 = min(width, int(np.ceil(points[:, 0].max())) + 1)
    y1 = min(height, int(np.ceil(points[:, 1].max())) + 1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return x0, y0, x1, y1


def warp_back(
    crop: NDArray[np.generic], affine: Affine, region: tuple[int, int, int, int]
) -> NDArray[np.generic]:
    """The crop put back into frame coordinates, over `region` only (zeros outside it)."""
    x0, y0, x1, y1 = region
    inverse = cv2.invertAffineTransform(affine)
    inverse[:, 2] -= (x0, y0)
    return np.asarray(
        cv2.warpAffine(
            crop,
            inverse,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
    )


def shrunk_crop_mask(size: int, shrink_px: int) -> NDArray[np.float32]:
    """1 inside the crop, 0 in a `shrink_px` border: the crop's edge pixels are interpolated
    from outside the face and the model's output there is least reliable."""
    mask = np.zeros((size, size), np.float32)
    mask[shrink_px : size - shrink_px, shrink_px : size - shrink_px] = 1.0
    return mask
