"""The built-in enhancer's maths: restore the detail the texture remap softened and give
the new face the camera's own grain, so it does not look pasted on a noisy webcam image."""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.face_records import FacePatch
from engine.core.profile import NO_STEPS, StepTimer
from engine.core.types import Frame

_SHARPEN_SIGMA = 1.2
_MAX_SHARPEN = 0.8  # unsharp-mask amount at strength 1
_UNBLUR = float(np.sqrt(9 / 8))


def noise_sigma(gray: np.ndarray, where: np.ndarray) -> float:
    """Per-pixel noise level inside `where` (robust: median absolute high-pass response).

    High-pass by subtracting a 3×3 blur; the median ignores edges, which are rare."""
    g = gray.astype(np.float32)
    high = (g - cv2.blur(g, (3, 3)))[where]
    # 1.4826·MAD estimates σ of the high-pass. Subtracting the 3×3 mean leaves 8/9 of
    # white noise's variance, so σ is √(9/8) of it (×1.125, the variance ratio, read
    # 6 % high: tests/engine/render/test_noise_sigma.py).
    return float(1.4826 * np.median(np.abs(high - np.median(high))) * _UNBLUR)


def sharpen_and_grain(
    frame: Frame,
    patch: FacePatch,
    strength: float,
    rng: np.random.Generator,
    steps: StepTimer = NO_STEPS,
) -> None:
    """Unsharp-mask `patch.image`, then add the grain the frame has and the render lacks
    (in place). `frame`: the input frame (nothing blended into it yet)."""
    image = patch.image
    with steps.step("sharpen"):
        blurred = cv2.GaussianBlur(image, (0, 0), _SHARPEN_SIGMA)
        image = image + (image - blurred) * (_MAX_SHARPEN * strength)
    region = np.clip(patch.input_in_patch(frame), 0, 255).astype(np.uint8)
    inside = patch.mask > 0.5
    if inside.sum() > 64:
        with steps.step("noise_level"):
            target_sigma = noise_sigma(cv2.cvtColor(region, cv2.COLOR_BGR2GRAY), inside)
            render_u8 = np.clip(image, 0, 255).astype(np.uint8)
            render_sigma = noise_sigma(cv2.cvtColor(render_u8, cv2.COLOR_BGR2GRAY), inside)
        extra = np.sqrt(max(0.0, target_sigma**2 - render_sigma**2)) * strength
        if extra > 0.1:
            with steps.step("grain"):
                grain = rng.standard_normal((*patch.shape, 1), dtype=np.float32) * extra
                image = image + grain
    with steps.step("clip"):
        patch.image = np.clip(image, 0.0, 255.0).astype(np.float32)
