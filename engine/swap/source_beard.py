"""Where the source photo's own beard, moustache or stubble is: there the target shows.

A source's beard in its de-lit texture, softened to the target's detail level and put in
the target's light, showed on a clean-shaven target, a woman or a child as a grey smear
around the mouth and on the chin: not a beard, and not who the user is. In the texture's
lower face (below the nose, off the lips and the nose, off the face's very edge: the
"lower" region of engine/swap/facial_hair.py), a texel is beard as far as it is darker
than the source's plain cheeks and strong fine detail is *dense* around it: hairs are
many strokes side by side, while a smile's fold, a wrinkle or the lips' rim is one dark
line with plain skin beside it, and pores are faint. That reaches the jaw line: judged
only away from the face's edge (facial_hair's "inner" region, 0.10 of the texture in),
a beard's strap along the jaw and the hair a long-haired photo shows beside its lower
cheeks stayed, as grey smudges and bands down the sides of a clean-shaven target's
lower cheeks. The identity's skin mask is 0 there (`SourceIdentity.texture`), so the
compositor keeps the target's own chin, stubble or beard. Measured in docs/swap.md
("The source's beard", "... to the jaw line").
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.core.median import row_medians
from engine.core.types import F32
from engine.render.uvmap import texture_iod
from engine.swap import facial_hair

# Scales in texels per 60 texels between the eyes: the fine detail's and the
# neighbourhood its density and the darkness are taken over.
DETAIL_PX = 1.5
AROUND_PX = 6.0
# A texel's detail is strong above this multiple of the plain cheeks' median detail.
STRONG = 2.0
# Ramps from skin to beard: how much denser strong detail is around a texel than on the
# cheeks (a fraction of the texels), and how much darker it is (grey levels).
DENSER = (0.15, 0.35)
DARKER = (4.0, 16.0)
MIN_CHEEK_TEXELS = 200


def source_beard(albedo: F32) -> F32:
    """T×T, 0..1: how surely each texel of `albedo` (the source's de-lit texture, BGR
    0..255) is its beard, moustache or stubble (0 outside the lower face)."""
    size = albedo.shape[0]
    regions = cv2.resize(facial_hair.regions(), (size, size), interpolation=cv2.INTER_LINEAR)
    # The lower face and the cheeks bound the averages; the lower face is judged.
    lower, cheeks = regions[..., 0], regions[..., 1] > 0.5
    if int(cheeks.sum()) < MIN_CHEEK_TEXELS:
        return np.zeros((size, size), np.float32)
    scale = texture_iod() * size / 60.0
    grey = cv2.cvtColor(np.ascontiguousarray(albedo, np.float32), cv2.COLOR_BGR2GRAY)
    face = ((lower > 0.0) | cheeks).astype(np.float32)
    detail = np.abs(grey - facial_hair.blur_on(grey, face, DETAIL_PX * scale))
    skin_detail = max(float(np.median(detail[cheeks])), 0.5)
    strong = (detail > STRONG * skin_detail).astype(np.float32)
    density, mean_grey = cv2.split(
        facial_hair.blur_on(np.dstack([strong, grey]), face, AROUND_PX * scale)
    )
    skin_grey, skin_density = (
        float(v) for v in row_medians(np.stack([grey[cheeks], density[cheeks]]))
    )
    beard = (
        facial_hair.ramp(density - skin_density, *DENSER)
        * facial_hair.ramp(skin_grey - mean_grey, *DARKER)
        * lower
    )
    return beard.astype(np.float32)
