"""Where a source photo's texture shows the inside of its mouth instead of lips, and
the lip colour that replaces it.

A smiling or talking source shows its teeth, tongue or the dark of its mouth between
its lips. The face mesh places its inner lip points a little inside the lips' real
edge over visible teeth, so the texture's lip triangles saw teeth too, and the row of
texels between the texture's closed lips (the triangles that bridge the photo's mouth)
is all mouth inside: a closed target mouth samples it where its lips meet. Near the
photo's inner-lip outline (a little grown), the pixels that are not lip-coloured —
less red than the photo's lips and not much darker, or much lighter (teeth), or much
darker (the mouth's dark) — are the mouth's inside. Those texels and that row are
filled with the colour of the lips around them (`fill_from_lips`): the source's lips
stay the source's. (Showing the target's own lips there instead was measured: ID@1
87.1 → 81.2 % on DEV+WIDE, and the clips' eye and mouth carry fell; docs/swap.md.)
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from engine.core.types import F32, Frame, Landmarks
from engine.face.mesh import topology
from engine.render.polygon import polygon_mask
from engine.render.uvmap import uv_map

# How far past the inner-lip outline the mouth's inside may still show, as a fraction of
# the mouth's width: the mesh's inner lip points sit up to about this far inside the
# lips' edge over visible teeth.
GROW = 0.04
# Against the photo's lips (Lab): teeth are less red (a*) and at most a little darker
# (shadowed by the upper lip), or much lighter; the mouth's dark is much darker. Ramps
# from lip to inside. DEV's smiles: lips a* 18-30, teeth 8-19.
TEETH_LESS_RED = (5.0, 11.0)
TEETH_LIGHTER = (-12.0, -2.0)
TEETH_BRIGHTER = (10.0, 18.0)  # much lighter than the lips: teeth, however pink
DARKER = (15.0, 25.0)
REACH = 1  # texels the mask grows by in the texture
SOFTEN = 1.0  # texels: the mask's edge
# Texels: the rings around a filled texel its lip colour is taken from, widest first; a
# ring counts where its kept texels weigh at least REACHED.
FILL_SIGMAS = (24.0, 12.0, 6.0, 3.0)
REACHED = 0.25


def mouth_interior(image: Frame, landmarks: Landmarks, size: int) -> F32:
    """T×T (T = `size`), 0..1: the texels that saw the inside of the photo's mouth."""
    topo = topology()
    inner = np.asarray(landmarks[topo.region("lips_inner"), :2], np.float32)
    outer = np.asarray(landmarks[topo.region("lips_outer"), :2], np.float32)
    grow = max(1, round(GROW * float(np.ptp(inner[:, 0]))))
    height, width = image.shape[:2]
    x0, y0 = (int(v) for v in np.maximum(np.floor(outer.min(axis=0)) - grow - 2, 0))
    x1 = min(int(np.ceil(outer[:, 0].max())) + grow + 3, width)
    y1 = min(int(np.ceil(outer[:, 1].max())) + grow + 3, height)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return np.zeros((size, size), np.float32)
    origin = np.array([x0, y0], np.float32)
    crop = image[y0:y1, x0:x1]
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    near = cv2.dilate(polygon_mask([inner - origin], crop.shape), kernel)
    lips = (polygon_mask([outer - origin], crop.shape) > 0.5) & (near < 0.05)
    inside = near * _not_lip(crop, lips)
    uvm = uv_map(size)
    texel = uvm.interpolate(np.asarray(landmarks[:, :2], np.float32) - origin)
    seen = cv2.remap(
        inside, texel[..., 0], texel[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    # The teeth seen are grown a texel: blurred, a thin line of them still showed half
    # its colour.
    seen = cv2.dilate(seen, np.ones((3, 3), np.uint8), iterations=REACH)
    return np.clip(cv2.GaussianBlur(seen.astype(np.float32), (0, 0), SOFTEN), 0.0, 1.0)


def fill_from_lips(albedo: F32, inside: F32) -> F32:
    """`albedo` with the texels `inside` marks (0..1) replaced by the colour of the texels
    around them that are not: the lips' own, for the mouth's inside seen on them. From
    the nearest first: a broad smile's teeth cover a band wider than the lips are thick,
    whose middle only the wider rings reach."""
    ys, xs = np.nonzero(inside > 0.0)
    if len(ys) == 0:
        return albedo
    # Only the mouth and the widest ring around it: the texture is 512², the mouth ~1/20.
    margin = int(3 * FILL_SIGMAS[0])
    y0, x0 = max(int(ys.min()) - margin, 0), max(int(xs.min()) - margin, 0)
    y1, x1 = int(ys.max()) + margin + 1, int(xs.max()) + margin + 1
    part = albedo[y0:y1, x0:x1]
    marked = inside[y0:y1, x0:x1]
    keep = 1.0 - marked
    fill = np.zeros_like(part)
    for sigma in FILL_SIGMAS:  # widest first; each nearer ring overrides where it reaches
        around, weight = _blurred(part * keep[..., None], keep, sigma)
        near = around / np.maximum(weight, 1e-6)[..., None]
        reached = np.clip(weight / REACHED, 0.0, 1.0)[..., None]
        fill = reached * near + (1.0 - reached) * fill
    out = albedo.copy()
    out[y0:y1, x0:x1] = part * keep[..., None] + fill * marked[..., None]
    return out.astype(np.float32)


def _blurred(values: F32, weight: F32, sigma: float) -> tuple[F32, F32]:
    """Both Gaussian-blurred by `sigma` texels; a wide blur is done on a shrunk copy (the
    ring's colour is smooth, and a full-size 145-tap blur cost ~100 ms)."""
    step = max(1, int(sigma // 3))
    if step == 1:
        return (
            cv2.GaussianBlur(values, (0, 0), sigma),
            cv2.GaussianBlur(weight, (0, 0), sigma),
        )
    height, width = weight.shape
    small = (max(1, width // step), max(1, height // step))
    out = []
    for plane in (values, weight):
        low = cv2.GaussianBlur(
            cv2.resize(plane, small, interpolation=cv2.INTER_AREA), (0, 0), sigma / step
        )
        out.append(cv2.resize(low, (width, height), interpolation=cv2.INTER_LINEAR))
    return out[0], out[1]


@lru_cache(maxsize=2)
def lip_line(size: int) -> F32:
    """T×T: the texels of the triangles that bridge the mouth's opening (all three
    corners on the inner lip outline)."""
    topo = topology()
    inner = np.isin(topo.triangles, topo.region("lips_inner")).all(axis=1)
    line = np.zeros((size, size), np.uint8)
    for corners in topo.uv[topo.triangles[inner]] * size:
        cv2.fillConvexPoly(line, np.round(corners * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    return line.astype(np.float32)


def _not_lip(crop: Frame, lips: np.ndarray) -> F32:
    """0..1 per pixel of `crop`: how clearly it is teeth or the mouth's dark rather than
    the colour of the photo's lips (`lips`: where they surely are)."""
    lab = cv2.cvtColor(crop.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    if lips.sum() < 10:
        return np.zeros(crop.shape[:2], np.float32)
    lip = np.median(lab[lips], axis=0)
    lighter = lab[..., 0] - lip[0]
    teeth = _ramp(lip[1] - lab[..., 1], *TEETH_LESS_RED) * _ramp(lighter, *TEETH_LIGHTER)
    bright = _ramp(lighter, *TEETH_BRIGHTER)
    return np.maximum(np.maximum(teeth, bright), _ramp(-lighter, *DARKER))


def _ramp(value: F32, lo: float, hi: float) -> F32:
    return np.clip((value - lo) / (hi - lo), 0.0, 1.0).astype(np.float32)
