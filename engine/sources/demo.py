"""Synthetic demo source: a bundled public-domain portrait whose head moves.

Gives the pipeline real motion to track on machines without a camera.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from engine.core.imageio import ImageReadError, read_image
from engine.core.paths import DEMO_PORTRAIT
from engine.core.types import Frame
from engine.sources.base import FrameSource, SourceError, SourceInfo

DEFAULT_SIZE = (1280, 720)
# Wide blurs on images larger than this are made on a smaller copy (see _smooth_blur).
_BLUR_MAX_SIDE = 2048


def _smooth_blur(image: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian blur; on a large image made at a reduced size and scaled back, which
    for these wide, smooth blurs gives the same picture in milliseconds instead of
    minutes (a 7000×7000 demo: a sigma-200 kernel over 49 megapixels)."""
    height, width = image.shape[:2]
    if max(height, width) <= _BLUR_MAX_SIDE:
        return cv2.GaussianBlur(image, (0, 0), sigma)
    # Small enough to fit the limit, and for a kernel of at most ~50 taps.
    factor = max(math.ceil(max(height, width) / _BLUR_MAX_SIDE), math.ceil(sigma / 8))
    small = cv2.resize(image, (width // factor, height // factor), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / factor)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


class DemoSource(FrameSource):
    kind = "demo"

    def __init__(
        self,
        portrait: str | Path = DEMO_PORTRAIT,
        fps: float = 30.0,
        **kwargs: object,
    ) -> None:
        super().__init__("demo", **kwargs)  # type: ignore[arg-type]
        self.portrait_path = Path(portrait)
        self.fps = fps
        self._tick = 0
        self._canvas: Frame | None = None
        self._layers: tuple[np.ndarray, np.ndarray] | None = None

    def _open(self) -> SourceInfo:
        width, height = self.size or DEFAULT_SIZE
        try:
            portrait = read_image(self.portrait_path)
        except ImageReadError as exc:
            raise SourceError(f"demo portrait: {exc}") from exc
        scale = 0.95 * height / portrait.shape[0]
        portrait = cv2.resize(portrait, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ph, pw = portrait.shape[:2]
        # A soft-edged alpha so the moving photo does not drag a hard rectangle around.
        alpha = np.zeros((ph, pw), np.float32)
        border = max(4, int(0.06 * min(ph, pw)))
        alpha[border:-border, border:-border] = 1.0
        self._layers = (portrait, _smooth_blur(alpha, border / 2))
        backdrop = cv2.resize(portrait, (width, height), interpolation=cv2.INTER_AREA)
        self._canvas = _smooth_blur(backdrop, 25) // 2 + 40
        self._tick = 0
        return SourceInfo(self.kind, self.portrait_path.name, width, height, self.fps)

    def pose_at(self, tick: int) -> tuple[float, float, float, float]:
        """Roll (degrees), x/y offsets (fraction of size) and scale of the head at a tick."""
        t = tick / self.fps
        roll = 8.0 * math.sin(2 * math.pi * t / 4.0)
        dx = 0.08 * math.sin(2 * math.pi * t / 6.0)
        dy = 0.03 * math.sin(2 * math.pi * t / 3.0)
        scale = 1.0 + 0.06 * math.sin(2 * math.pi * t / 5.0)
        return roll, dx, dy, scale

    def _read(self) -> Frame | None:
        assert self._canvas is not None and self._layers is not None
        portrait, alpha = self._layers
        height, width = self._canvas.shape[:2]
        roll, dx, dy, scale = self.pose_at(self._tick)
        self._tick += 1
        ph, pw = alpha.shape
        matrix = cv2.getRotationMatrix2D((pw / 2, ph / 2), roll, scale)
        matrix[0, 2] += (width - pw) / 2 + dx * width
        matrix[1, 2] += (height - ph) / 2 + dy * height
        size = (width, height)
        # uint8 warp and one blendLinear: the demo must not eat the core the engine needs
        # (float arithmetic on whole 720p frames cost ~10 ms here).
        fg = cv2.warpAffine(portrait, matrix, size, flags=cv2.INTER_LINEAR)
        a = cv2.warpAffine(alpha, matrix, size, flags=cv2.INTER_LINEAR)
        frame: Frame = cv2.blendLinear(fg, self._canvas, a, 1.0 - a)
        return frame
