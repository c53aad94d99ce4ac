"""The lips take the target's own colour: the source photo's lipstick does not ride along.

The new face's lips kept the source photo's colour against its skin, so a source's red
lipstick or bright pink lips came out on every target: on a smiling target, whose lips
are stretched thin, as a painted red or pink rim round its teeth (on men, children and
women alike: anon_inspireface_1561_1's lipstick, anon_inspireface_2963_1's pink lips).
Lip colour is make-up and light as much as who someone is, and a viewer knows the
user's. The lips' shape and their fine detail stay the source's; their colour moves
`LIP_SHARE` of the way (per BGR channel, in log terms) from the render's lip median to
the target's own on the same mesh points. Measured in docs/swap.md ("Your own lip
colour").
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from engine.core.types import F32
from engine.face.mesh import topology
from engine.render.polygon import polygon_mask

LIP_SHARE = 1.0
MASK_SIZE = 128
# The lips' edge in the texture, in texture widths: softened over this, so the colour
# change has no line at the lips' outline.
SOFT = 0.006
LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR


@lru_cache(maxsize=1)
def lips_mask() -> F32:
    """MASK_SIZE² texture-space mask, 0..1: the lips' red, outside the mouth's opening."""
    topo = topology()
    uv = topo.uv.astype(np.float32) * MASK_SIZE
    shape = (MASK_SIZE, MASK_SIZE)
    outer = polygon_mask([uv[topo.region("lips_outer")]], shape)
    inner = polygon_mask([uv[topo.region("lips_inner")]], shape)
    lips = np.clip(outer - inner, 0.0, 1.0)
    return cv2.GaussianBlur(lips, (0, 0), SOFT * MASK_SIZE).astype(np.float32)


def own_lip_colour(image: F32, own: F32, lips: F32, share: float = LIP_SHARE) -> F32:
    """`image` (the render, BGR 0..255 on the working grid) with its lips' colour moved
    `share` of the way to `own`'s (the target on the same grid), pixel by pixel, at the
    render's own lightness. `lips`: the lips mask looked up on the grid."""
    near = np.flatnonzero(lips > 0.0)
    if share <= 0.0 or not len(near):
        return image
    out = np.array(image, dtype=np.float32, copy=True)
    flat = out.reshape(-1, 3)
    ours = flat[near]
    theirs = own.reshape(-1, 3)[near]
    # The target's colour at the render's lightness: the lips' shape and fine detail
    # stay the source's, their hue and saturation become the target's. The target's
    # chroma (its colour less its grey) is added, not scaled: scaled up to a lighter
    # render, a dark lip line's red went past what a pixel can show (a glowing red line).
    # On a darker render it shrinks with the lightness, so dark stays dark.
    ours_level = ours @ LUMA
    theirs_level = theirs @ LUMA
    fade = np.minimum(ours_level / np.maximum(theirs_level, 1.0), 1.0)
    coloured = ours_level[:, None] + (theirs - theirs_level[:, None]) * fade[:, None]
    flat[near] = ours + (share * lips.reshape(-1)[near])[:, None] * (coloured - ours)
    return out
