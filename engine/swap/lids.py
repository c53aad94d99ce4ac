"""How far the output's lids open: the target's opening, read past the source's eye.

Whoever reads an eye (a viewer, a landmarker) reads its opening partly from the lids'
margin and partly from the eye's look: the crease, the lashes, how much iris shows.
The swapped eye has the target's lid margin but the source's look, so it reads as
partway between the two: on DEV+WIDE the judge's landmarker read the output's
openness as 0.78 × the target's plus 0.17 × the source photo's (both as lid gap over
eye width), and on `obama_1.mp4` a blink carried only half. So the output's lids open
by the target's gap plus `GAIN` × its difference from the source photo's: a wide-eyed
source shown on a narrow-eyed target, or on a squint, closes its lids further, and
opens them further the other way round. The photo's eyes (`swap.eyes` "photo",
"photo_following") take `GAIN`; your own eyes (the default) `YOURS_GAIN`, less, since
the eyeball shown through the lids stretches or squashes with them: with your own lid
margin drawn (engine/swap/eyes.py) the judge still read 0.81 × the target's plus 0.19 ×
the source's, 0.84 / 0.16 with 0.25, 0.88 / 0.14 with 0.5 (DEV+WIDE, docs/swap.md).
"""

from __future__ import annotations

from engine.core.types import F32
from engine.face.iris import eye_openness

# Lower lid (corner to corner) and upper lid (between the corners) of each eye, right
# eye first; the upper lid's points face the lower lid's inner points one to one.
LIDS = (
    ((33, 7, 163, 144, 145, 153, 154, 155, 133), (246, 161, 160, 159, 158, 157, 173)),
    ((362, 382, 381, 380, 374, 373, 390, 249, 263), (398, 384, 385, 386, 387, 388, 466)),
)
GAIN = 0.5
YOURS_GAIN = 0.25
# Where the lids meet, from the lower lid towards the upper: the upper lid does most
# of a blink's travel.
MEET = 0.3
NARROWEST = 0.02  # gap over width: the lids touch, the triangles between them stay valid


def lid_gaps(
    target: F32, source: F32, gain: float = GAIN
) -> tuple[tuple[float, float], tuple[float, float]]:
    """(the target's, the output's) lid gap over eye width, right eye first; `target`
    and `source` are 468-point meshes (frame pixels, and the source's canonical shape);
    `gain`: how far the output's lids are pushed past the target's, against the
    source's."""
    seen = eye_openness(target)
    own = eye_openness(source)
    shown = tuple(max(NARROWEST, t + gain * (t - s)) for t, s in zip(seen, own, strict=True))
    return seen, (shown[0], shown[1])


def open_lids(points: F32, seen: tuple[float, float], shown: tuple[float, float]) -> F32:
    """`points` (a posed mesh, frame pixels) with each eye's lids moved apart or
    together along their facing pairs so that its gap over width goes `seen` → `shown`."""
    out = points.copy()
    for (lower, upper), was, now in zip(LIDS, seen, shown, strict=True):
        if was <= 0.0 or abs(now - was) < 1e-4:
            continue
        low = list(lower[1:-1])
        up = list(upper)
        a, b = points[low, :2], points[up, :2]
        meet = a + MEET * (b - a)
        scale = now / was
        out[low, :2] = meet + scale * (a - meet)
        out[up, :2] = meet + scale * (b - meet)
    return out
