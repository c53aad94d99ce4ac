"""What a marked frame goes through on its way to a viewer, as functions: the stream's
MJPEG, an H.264 re-encode, a JPEG re-save, a downscale, a crop. The robustness
measurement (tools/watermark_eval.py) and the tests run the mark through each."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import av
import cv2
import numpy as np

from engine.core.types import Frame

Attack = Callable[[Frame], Frame]


def jpeg(frame: Frame, quality: int) -> Frame:
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if decoded is None:
        raise ValueError("JPEG decoding failed")
    return np.asarray(decoded, dtype=np.uint8)


def downscale(frame: Frame, factor: float = 0.5) -> Frame:
    height, width = frame.shape[:2]
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA)


def centre_crop(frame: Frame, keep: float = 0.8) -> Frame:
    height, width = frame.shape[:2]
    h, w = round(height * keep), round(width * keep)
    y, x = (height - h) // 2, (width - w) // 2
    return np.ascontiguousarray(frame[y : y + h, x : x + w])


def h264(frames: Sequence[Frame], crf: int = 28, fps: int = 30) -> list[Frame]:
    """`frames` encoded as one H.264 stream (libx264, yuv420p, `crf`) and decoded back."""
    height, width = frames[0].shape[:2]
    height, width = height - height % 2, width - width % 2  # 4:2:0 needs even sizes
    buffer = io.BytesIO()
    with av.open(buffer, "w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"crf": str(crf), "preset": "veryfast"}
        for frame in frames:
            picture = av.VideoFrame.from_ndarray(
                np.ascontiguousarray(frame[:height, :width]), format="bgr24"
            )
            container.mux(stream.encode(picture))
        container.mux(stream.encode())
    buffer.seek(0)
    with av.open(buffer) as container:
        return [f.to_ndarray(format="bgr24") for f in container.decode(video=0)]


# The single-frame attacks the targets name (H.264 needs a sequence: `h264`).
ATTACKS: dict[str, Attack] = {
    "mjpeg_q80": lambda f: jpeg(f, 80),
    "jpeg_q75": lambda f: jpeg(f, 75),
    "downscale_50": downscale,
    "crop_80": centre_crop,
}
