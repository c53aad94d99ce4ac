"""GFPGAN-style restoration of one swapped face, on its aligned crop.

The face is aligned to the FFHQ template at the model's size from the mesh's 5 points,
restored, and only the change (times the strength) is warped back and added to the
face's patch, so the parts the model does not touch are not resampled.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.face_records import Face
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import Frame
from engine.neural.align import five_points_from_mesh, similarity_transform, warp_crop
from engine.neural.restorer import FaceRestorer


def restore_face(
    restorer: FaceRestorer,
    frame: Frame,
    face: Face,
    strength: float,
    steps: StepTimer = NO_STEPS,
) -> bool:
    """Restore `face.patch` in place; False when there is nothing to restore."""
    patch = face.patch
    if patch is None or face.landmarks is None or strength <= 0.0:
        return False
    size = restorer.size
    with steps.step("align"):
        affine = similarity_transform(five_points_from_mesh(face.landmarks), restorer.template)
        # The same mapping from the patch's own coordinates (its corner and scale).
        to_frame = np.vstack([patch.patch_to_frame(), [0.0, 0.0, 1.0]])
        patch_affine = affine @ to_frame
        # What the viewer will see: the frame, with the new face where its mask allows.
        crop = np.asarray(warp_crop(frame, affine, size, replicate=True), np.float32)
        face_in_crop = np.asarray(warp_crop(patch.image, patch_affine, size), np.float32)
        mask_in_crop = np.asarray(warp_crop(patch.mask, patch_affine, size), np.float32)
        crop += mask_in_crop[..., None] * (face_in_crop - crop)
    with steps.step("restore"):
        delta = strength * (restorer.restore(crop) - crop)
    with steps.step("paste"):
        scale = float(np.sqrt(abs(np.linalg.det(patch_affine[:2, :2]))))  # per patch px
        if scale > 1.5:
            # Shrinking back to a small face: low-pass first or the detail aliases.
            delta = cv2.GaussianBlur(delta, (0, 0), (scale - 1.0) / 2.0)
        height, width = patch.shape
        back = cv2.warpAffine(
            delta,
            patch_affine,
            (width, height),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
        patch.image = np.clip(patch.image + back, 0.0, 255.0).astype(np.float32)
    return True
