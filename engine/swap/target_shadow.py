"""The target's own deep shadows (the nose's shadow on a side-lit cheek, the shaded side
of a face under a hard light) kept on the new face.

The new face's skin is the source's albedo in the target's smooth light field, played
over the face's form (engine/swap/form_light.py). A hard light's cast shadow has an
edge no smooth field or form can draw, so the shaded cheek of a side-lit target came
out lit, a bright wedge beside the nose that did not match the head's dim side light
(alex_lacamoire_1: the most seen fault of its rows). Here, where the target's skin,
smoothed a little, is much darker than the render's there (under `DEEP` of it: the
render is the target's light on the source's skin, so only a shadow the field missed
is that much darker), the render takes the target's darkening, channel by channel: a
shadow on skin is warmer than the lit skin, and darkened in lightness alone it came
out grey. The target's gentler shading (a nose's flank, the cheeks under a soft light)
is left to the field: taken too, it fell where the source's nose no longer is, as
grey bands and muddy cheeks (docs/swap.md, "Your own shadows").
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.types import F32
from engine.swap.shading import LUMA

DEEP = (0.75, 0.6)  # the target's lightness over the render's: none → all its darkening
SMOOTH_IOD = 0.03  # a shadow is a region: the ratio is taken over this much
DARKEST = 0.3  # per channel, the most a shadow darkens


def shadow_gain(own: F32, image: F32, plain: F32, iod: float) -> F32 | None:
    """H×W×3 BGR gain taking the render (`image`) into the target's (`own`, on the
    render's grid) deep shadows on its plain skin (`plain`, 0..1), 1 elsewhere; None
    when there are none. `iod`: the inter-ocular distance on the grid.

    Found on a grid of half the size: the gain is as smooth as the ratio it comes
    from, and at the render's own size the blurs cost 1.5 ms a frame in the running
    pipeline (0.6-0.7 here)."""
    height, width = plain.shape
    half = (max(1, width // 2), max(1, height // 2))
    own_half, image_half, plain_half = (
        cv2.resize(values, half, interpolation=cv2.INTER_AREA) for values in (own, image, plain)
    )
    sigma = max(0.7, SMOOTH_IOD * iod / 2.0)

    def smooth(values: F32) -> F32:
        return cv2.GaussianBlur(values, (0, 0), sigma)

    # Found on the lightness alone (one-channel blurs): most frames have no deep
    # shadow, and the colour's blurs are then not paid for.
    weight = np.maximum(smooth(plain_half), 1e-3)
    theirs = smooth(cv2.transform(own_half, LUMA[None]) * plain_half)
    ours = np.maximum(smooth(cv2.transform(image_half, LUMA[None]) * plain_half), weight)
    deep = np.clip((DEEP[0] - theirs / ours) / (DEEP[0] - DEEP[1]), 0.0, 1.0) * plain_half
    if not deep.any():
        return None
    where = plain_half[..., None]
    ratio = smooth(own_half * where) / np.maximum(smooth(image_half * where), 1e-3)
    gain = 1.0 + deep[..., None] * (np.clip(ratio, DARKEST, 1.0) - 1.0)
    # Back at full size (cut to the plain skin on the half grid: at a feature's edge
    # the darkening reaches a pixel in, at most).
    return cv2.resize(gain.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
