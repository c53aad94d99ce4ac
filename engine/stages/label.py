"""Draws a visible "SYNTHETIC" badge on the output when `output.synthetic_label` is set.

It is a stage, not a sink or a GUI overlay, so that every consumer of the output — the
virtual camera, the network stream, the recorder and the preview — shows the same label.
It runs last, after the compositor.
"""

from __future__ import annotations

from typing import ClassVar

import cv2
import numpy as np

from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings
from engine.core.types import Frame
from engine.stages.base import Stage

TEXT = "SYNTHETIC"


def draw_label(frame: Frame, text: str = TEXT) -> None:
    """Draw the badge in place, in the bottom-right corner, sized to the frame."""
    h, w = frame.shape[:2]
    scale = max(0.35, min(w, h) / 900)
    thickness = max(1, round(scale * 2))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thickness)
    pad = max(3, round(th * 0.5))
    margin = max(4, round(min(w, h) * 0.02))
    x1, y1 = w - margin, h - margin
    x0, y0 = max(0, x1 - tw - 2 * pad), max(0, y1 - th - base - 2 * pad)
    # Darken only the badge's rectangle (a view, blended in one vectorised step).
    roi = frame[y0:y1, x0:x1]
    roi[:] = (roi.astype(np.uint16) * 2 // 5).astype(np.uint8)
    cv2.putText(
        frame,
        text,
        (x0 + pad, y1 - pad - base),
        cv2.FONT_HERSHEY_DUPLEX,
        scale,
        (255, 255, 255),
        thickness,
        cv2.LINE_AA,
    )


class SyntheticLabel(Stage):
    name: ClassVar[str] = "label"

    def process(self, packet: FramePacket, settings: EngineSettings) -> FramePacket:
        if not settings.output.synthetic_label:
            packet.skip(self.name, "off")
            return packet
        out = packet.output
        # The captured frame is read-only and shared; draw on our own copy of it.
        if out is None or not out.flags.writeable:
            with packet.step("copy"):
                out = np.array(packet.result, copy=True)
        with packet.step("draw"):
            draw_label(out)
        packet.output = out
        return packet
