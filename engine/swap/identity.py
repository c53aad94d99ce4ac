"""A source identity (the latent): de-lit texture in mesh texture space, shape and colour.

Built from one or more photos of one person: each photo's face is unwrapped into the
mesh's texture space and its own light divided out with a smooth skin field fitted to it
(engine/swap/shading.py) and that light's play over the face's form
(engine/swap/form_light.py); what cast shadows are left are lifted, specular highlights
toned down (engine/swap/shadows.py) and the skin's remaining strong local departures
evened (engine/swap/departures.py); texels the photo saw at a grazing angle are filled
from the mirrored side. With several photos, the one that saw the face best gives the
texture, and the others fill what it saw badly (grazing or in shadow), each normalised
to one skin colour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.types import F32, Frame, Landmarks
from engine.face.fit import FaceFitter, vertex_normals
from engine.face.mesh import topology
from engine.render.uvmap import fill_outside, uv_map
from engine.swap import departures, form_light, mouth, shading, shadows
from engine.swap.eyes import Eyeball, eyeball, eyes, iris_colour
from engine.swap.skin_texture import SourceSkin, source_skin
from engine.swap.source_beard import source_beard

_MIRROR_PREFERENCE = 0.05  # the mirrored side only wins where this side was barely seen
# A texel in a cast shadow or a highlight counts this much less when photos are combined:
# another photo of the person that saw it plainly lit fills it better than correcting it.
_SHADOW_DISTRUST = 0.8
# With several photos, the others count this much less than the one that saw the face
# best (the largest total confidence). Averaged alike, photos with different expressions
# and small misalignments blur the features into each other: on DEV, several photos of
# one person against one (ID@1 of the swaps onto every other DEV target) went from
# 96.0 → 91.1 % averaged to 96.0 → 97.8 % with the best photo leading.
SECONDARY_WEIGHT = 0.05


@dataclass(frozen=True, eq=False)
class SourceIdentity:
    key: str
    name: str
    paths: tuple[Path, ...]
    albedo: F32  # T×T×3 BGR 0..255, lighting removed; plain skin ≈ skin_colour
    canonical: F32  # 468×3 pose-free shape (canonical units)
    vertex_albedo: F32  # 468×3 albedo at each vertex
    thumbnail: NDArray[np.uint8]
    skin_colour: F32 = field(default_factory=lambda: np.full(3, 128.0, np.float32))
    warning: str | None = None
    # T×T: 1 where the texture is the source's skin, 0 where hair or headwear covers its
    # forehead or temples, or where the mesh reached past the face onto a background of
    # another hue (engine/swap/hair.py): the target shows there instead.
    forehead_skin: F32 | None = field(default=None, repr=False)
    # T×T, 0..1: the texels that saw the inside of a photo's mouth (teeth, its dark) on
    # or next to its lips (engine/swap/mouth.py); the render fills them with lip colour.
    mouth_inside: F32 | None = field(default=None, repr=False)
    # What neural swappers need to compute their own embeddings.
    images: tuple[Frame, ...] = field(default=(), repr=False)
    landmarks: tuple[Landmarks, ...] = field(default=(), repr=False)
    # `texture`'s variants, made on first use (a dict: the dataclass is frozen).
    _textures: dict[tuple[bool, bool], F32] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @cached_property
    def eyeballs(self) -> tuple[Eyeball | None, Eyeball | None]:
        """The source's eyes as eyeballs behind the lids (engine/swap/eyes.py), right
        eye first; None for an eye whose iris could not be found."""
        right, left = (eyeball(self.albedo, eye) for eye in eyes())
        return right, left

    @cached_property
    def iris_colour(self) -> F32 | None:
        """The source's iris colour (BGR albedo), one for both eyes (engine/swap/eyes.py);
        None when neither eye's iris was found."""
        return iris_colour(self.eyeballs)

    @cached_property
    def beard(self) -> F32:
        """T×T, 0..1: the photo's own beard, moustache or stubble in the texture
        (engine/swap/source_beard.py)."""
        return source_beard(self.albedo)

    @cached_property
    def skin(self) -> SourceSkin:
        """The plain skin's departures from its smooth field, and their spread
        (engine/swap/skin_texture.py), over the skin the render shows: not the forehead
        hair, not the photo's own beard."""
        shown = 1.0 - self.beard
        if self.forehead_skin is not None:
            shown = shown * self.forehead_skin
        return source_skin(self.albedo, shown.astype(np.float32))

    def texture(self, *, mouth_line: bool = True, beard: bool = False) -> F32:
        """T×T×4: the albedo (BGR) and the skin mask (`forehead_skin`, 1 where none was
        found) in one array, so that the renderer looks both up with one remap a frame;
        made once per variant.

        The mouth's inside seen on the lips is filled with lip colour; with `mouth_line`
        so is the row of texels between the texture's closed lips (a closed target mouth
        samples it at its lips' meeting line, where the photo's teeth showed as a white
        stripe); without it (a swap that shows the source's mouth inside) that row keeps
        it: stretched open, it is the mouth's inside. Without `beard` the skin mask is 0
        on the photo's own beard: the target's chin shows there (docs/swap.md)."""
        key = (mouth_line, beard)
        made = self._textures.get(key)
        if made is None:
            made = self._textures[key] = self._texture(mouth_line, beard)
        return made

    def _texture(self, mouth_line: bool, beard: bool) -> F32:
        size = self.albedo.shape[0]
        skin = (
            np.ones((size, size), np.float32) if self.forehead_skin is None else self.forehead_skin
        )
        if not beard:
            skin = skin * (1.0 - self.beard)
        albedo = self.albedo
        if self.mouth_inside is not None:
            line = mouth.lip_line(size)
            inside = (
                np.maximum(self.mouth_inside, line)
                if mouth_line
                else self.mouth_inside * (1.0 - line)
            )
            albedo = mouth.fill_from_lips(albedo, inside)
        return np.dstack([albedo, skin]).astype(np.float32)


@dataclass(frozen=True, eq=False)
class UnwrappedPhoto:
    albedo: F32
    weight: NDArray[np.float32]  # T×T confidence (how squarely the photo saw each texel)
    canonical: F32
    skin_colour: F32  # BGR: what this photo's de-lit skin is normalised to


def unwrap(image: Frame, landmarks: Landmarks, fitter: FaceFitter) -> UnwrappedPhoto:
    uvm = uv_map()
    normals = vertex_normals(landmarks, fitter.triangles)
    facing = np.clip(-normals[:, 2], 0.0, 1.0)
    texel = uvm.interpolate(np.column_stack([landmarks[:, :2], facing]).astype(np.float32))
    texture = cv2.remap(
        image.astype(np.float32),
        texel[..., 0],
        texel[..., 1],
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    low, low_weight = shading.unwrap_lowres(image, landmarks, facing)
    light = shading.smooth_field(low, shading.skin_weight(low_weight))
    # The photo's own light over its face's form (the nose's flanks, the sockets) is
    # its light too: divided out with the field (engine/swap/form_light.py), on its skin
    # only (on brows and lips the fit's colour tinted them blue-grey and paled the lips).
    terms = form_light.basis(normals)
    masks = shading.feature_masks(low.shape[0])
    form = form_light.form_gain(
        low, shading.skin_weight(low_weight), light, terms, terms, masks.skin
    )
    light = light * form ** (1.0 - masks.features)[..., None]
    colour = shading.skin_colour(low, low_weight)
    albedo = texture / np.maximum(shading.upsample(light, uvm.size), 1.0) * colour
    shadow = shadows.shadow_mask(albedo, colour)
    albedo = shadows.lift_shadows(albedo, shadow, colour)
    glare = shadows.highlight_mask(albedo, colour)
    albedo = shadows.tame_highlights(albedo, glare, colour)
    albedo = shadows.even_lit_skin(albedo, colour)
    albedo = departures.even_departures(albedo)
    misleading = np.maximum(shadow, glare)
    visibility = texel[..., 2] * uvm.covered * (1.0 - _SHADOW_DISTRUST * misleading)
    # Mirror fill: the texture layout is left/right symmetric about u = 0.5.
    w_own = visibility**4
    w_mirror = _MIRROR_PREFERENCE * w_own[:, ::-1]
    total = w_own + w_mirror
    blended = (albedo * w_own[..., None] + albedo[:, ::-1] * w_mirror[..., None]) / np.maximum(
        total, 1e-6
    )[..., None]
    canonical = fitter.fit(None, landmarks).canonical_landmarks
    return UnwrappedPhoto(blended.astype(np.float32), total.astype(np.float32), canonical, colour)


def combine(photos: list[UnwrappedPhoto]) -> tuple[F32, F32, F32]:
    """Several photos' textures mixed by confidence, each brought to one skin colour, the
    best-seen photo leading (`SECONDARY_WEIGHT`); their shapes averaged; outside the face
    filled. Returns (albedo, canonical, skin colour)."""
    uvm = uv_map()
    weights = np.stack([p.weight for p in photos])[..., None] + 1e-6
    totals = weights.sum(axis=(1, 2, 3))
    others = np.arange(len(photos)) != int(np.argmax(totals))
    weights[others] *= SECONDARY_WEIGHT
    colour = (np.stack([p.skin_colour for p in photos]) * totals[:, None]).sum(
        axis=0
    ) / totals.sum()
    textures = np.stack([p.albedo / np.maximum(p.skin_colour, 1.0) * colour for p in photos])
    albedo = (textures * weights).sum(axis=0) / weights.sum(axis=0)
    albedo = fill_outside(albedo.astype(np.float32), uvm.covered)
    canonical = np.mean([p.canonical for p in photos], axis=0).astype(np.float32)
    return albedo, canonical, colour.astype(np.float32)


def vertex_colours(albedo: F32) -> F32:
    """Albedo sampled at each vertex's texture coordinate."""
    size = albedo.shape[0]
    uv = topology().uv * size
    sampled = cv2.remap(
        albedo,
        uv[:, 0:1].copy(),
        uv[:, 1:2].copy(),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return sampled.reshape(-1, 3).astype(np.float32)


def thumbnail(image: Frame, landmarks: Landmarks, size: int = 128) -> NDArray[np.uint8]:
    x0, y0 = landmarks[:, :2].min(axis=0)
    x1, y1 = landmarks[:, :2].max(axis=0)
    side = max(x1 - x0, y1 - y0) * 1.3
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    scale = size / side
    m = np.array([[scale, 0, size / 2 - cx * scale], [0, scale, size / 2 - cy * scale]])
    return cv2.warpAffine(
        image, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
