"""What every frame Fusecam hands out carries: the invisible watermark (engine.watermark),
always, and the visible "SYNTHETIC" label when it is on.

The one place both are applied. The live outputs get it from the output guard (virtual
camera, stream, recording); `fusecam swap` applies it to every frame it writes.
"""

from __future__ import annotations

from engine.core.types import Frame
from engine.outputs.label import draw_label
from engine.watermark.embed import Watermarker


class Stamp:
    """Marks frames; thread-safe (the watermark's planes are cached under a lock)."""

    def __init__(self) -> None:
        self.watermark = Watermarker()

    def apply(self, frame: Frame, label: bool) -> Frame:
        """A new frame: `frame` marked, and labelled if `label`; `frame` is not changed."""
        out = self.watermark.mark(frame)
        if label:
            draw_label(out)
        return out
