"""The new face's eyes follow the target's: its lids close when the target's do, and
its irises look where the target's look — by default the target's own eyeballs in the
source's iris colour, or (`swap.eyes` "photo_following") the source's eyeballs turned
(engine/swap/eyes.py, engine/face/iris.py).

Real photos, real clip frames, real models, the real renderer: a blink is a frame pair
of `obama_1.mp4`; a gaze aside is the iris model's irises moved."""

from __future__ import annotations

import copy

import av
import cv2
import numpy as np
import pytest

from engine.core.face_records import FacePatch
from engine.core.imageio import read_image
from engine.core.settings import EngineSettings, EyesMode, SwapSettings
from engine.core.types import F32, Frame
from engine.face.iris import eye_openness
from engine.swap import eye_surround
from engine.swap import eyes as eyes_module
from engine.swap.eyes import Eyeball, eyes
from engine.swap.library import SourceLibrary
from engine.swap.renderer import FaceRenderer
from engine.swap.shading import LUMA
from tests.engine.swap.support import (
    DEV_FACES,
    DEV_VIDEO,
    EILEEN,
    GRACE,
    analyzer,
    dev,
    fitted_face,
    fitter,
    swap_frame,
)
from tests.engine.swap.test_composite import swapped as swapped_pair


def openness(frame: Frame) -> float:
    """Lid gap over eye width of the frame's main face, both eyes' mean (refined lids)."""
    face = analyzer().analyze_image(frame)[0]
    assert face.landmarks is not None
    return float(np.mean(eye_openness(face.landmarks)))


def swapped(library: SourceLibrary, frame: Frame, eyes: EyesMode) -> Frame:
    key = library.load_identity([EILEEN]).key
    settings = EngineSettings(swap=SwapSettings(source_key=key, eyes=eyes))
    return swap_frame(library, settings, frame).result


def clip_frames(indices: tuple[int, ...]) -> list[Frame]:
    with av.open(str(DEV_VIDEO / "obama_1.mp4")) as container:
        frames = {
            i: frame.to_ndarray(format="bgr24")
            for i, frame in enumerate(container.decode(video=0))
            if i in indices
        }
    return [frames[i] for i in indices]


@pytest.mark.testdata
def test_a_target_whose_eyes_close_closes_the_new_faces_eyes(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eileen Collins (eyes open) onto two frames of `obama_1.mp4`: eyes open (33) and
    shut in a blink (162), with the photo's eyeballs turned to follow (the mode where
    a lid must be drawn over them). The output's lids close with the target's: its
    openness (refined lids, re-detected on the output) drops by most of what the
    target's does."""
    open_target, blink = clip_frames((33, 162))
    target_drop = openness(open_target) - openness(blink)
    assert target_drop > 0.12, "frame 162 should be a blink"

    def output_drop() -> float:
        mode: EyesMode = "photo_following"
        return openness(swapped(library, open_target, mode)) - openness(
            swapped(library, blink, mode)
        )

    drawn = output_drop()
    monkeypatch.setattr(eyes_module, "SHUT_PIXELS", (2.0, 3.0))  # never shut: no lid drawn
    squeezed = output_drop()
    # Measured: the target's openness drops by 0.175 of the eye's width, the output's by
    # 0.148 with the lids drawn over a shut eye and by 0.087 with the source's open eye
    # only squeezed between the target's lids.
    assert drawn > 0.6 * target_drop, (target_drop, drawn, squeezed)
    assert drawn > squeezed + 0.03, (drawn, squeezed)


def _iris_x(patch: FacePatch, contour: F32) -> float:
    """The darkness-weighted centre (x, on the patch's grid) inside an eye's opening."""
    mask = np.zeros(patch.image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(contour).astype(np.int32)], 255)
    mask = cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0
    lum = patch.image @ LUMA
    dark = np.clip(np.percentile(lum[mask], 90) - lum, 0.0, None) * mask
    dark = np.where(dark > 0.5 * dark.max(), dark, 0.0)
    xs = np.arange(dark.shape[1], dtype=np.float64)[None, :]
    return float((dark * xs).sum() / dark.sum())


def test_an_iris_moved_in_the_target_moves_in_the_output(library: SourceLibrary) -> None:
    """The target looks aside: its irises moved along the eye line by a fifth of the
    eye's width. With the photo's eyeballs turned to follow, the output's irises move
    with them (shape transfer off, so that the eyes sit where the target's are). (With
    your own eyes the iris is the frame's own: test_your_own_eyes_... below.)"""
    frame = read_image(GRACE)
    face = fitted_face(frame)
    assert face.landmarks is not None and face.irises is not None
    identity = library.load_identity([EILEEN])
    renderer = FaceRenderer(fitter())
    settings = SwapSettings(shape_alpha=0.0, eyes="photo_following")
    aside = copy.copy(face)
    irises = face.irises.copy()
    widths = []
    for i, eye in enumerate(eyes()):
        a, b = face.landmarks[list(eye.corners), :2]
        widths.append(float(np.linalg.norm(b - a)))
        irises[i, :2] += 0.2 * (b - a)
    aside.irises = irises
    before = renderer.render(frame, face, identity, settings)
    after = renderer.render(frame, aside, identity, settings)
    assert before is not None and after is not None
    scale = before.image.shape[1] / before.frame_size[0]
    for i, eye in enumerate(eyes()):
        contour = (face.landmarks[list(eye.contour), :2] - (before.x0, before.y0) + 0.5) * scale
        moved = _iris_x(after, contour - 0.5) - _iris_x(before, contour - 0.5)
        shift = 0.2 * widths[i] * scale  # along x, near enough: Grace's eyes are level
        assert moved > 0.5 * abs(shift), (i, moved, shift)


def _eye_band(face_frame: Frame) -> tuple[slice, slice]:
    """Rows and columns around both eyes of the frame's main face."""
    face = analyzer().analyze_image(face_frame)[0]
    assert face.landmarks is not None
    ids = [i for eye in eyes() for i in eye.contour]
    pts = face.landmarks[ids, :2]
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    pad = 0.15 * (x1 - x0)
    return slice(int(y0 - pad), int(y1 + pad)), slice(int(x0 - pad), int(x1 + pad))


def _likeness(a: Frame, b: Frame) -> float:
    """Correlation of two crops' fine luminance structure (lashes, lid crease)."""
    fine = []
    for crop in (a, b):
        lum = crop.astype(np.float32) @ LUMA
        fine.append((lum - cv2.GaussianBlur(lum, (0, 0), 3.0)).ravel())
    return float(np.corrcoef(fine[0], fine[1])[0, 1])


@pytest.mark.testdata
def test_a_shut_eye_shows_the_targets_own_lid(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frame 162 of `obama_1.mp4` is a blink: the output's shut eyes show the target's
    own lid (its lash line and crease, in the render's colour), which an inpainted fill
    from the render around the opening did not: the eye band's fine structure follows
    the target's far more closely."""
    (blink,) = clip_frames((162,))
    rows, cols = _eye_band(blink)
    own_lid = _likeness(swapped(library, blink, "photo")[rows, cols], blink[rows, cols])
    inpaint = eyes_module._lid_skin

    def inpainted(region: F32, mine: F32, shown: F32, ring: np.ndarray) -> F32:
        return inpaint(region, mine, shown, np.zeros_like(ring))  # no lid skin to match

    monkeypatch.setattr(eyes_module, "_lid_skin", inpainted)
    filled = _likeness(swapped(library, blink, "photo")[rows, cols], blink[rows, cols])
    # Measured: 0.30 with the target's own lid, 0.07 inpainted.
    assert own_lid > filled + 0.1, (own_lid, filled)


@pytest.mark.testdata
def test_your_own_eyes_blink_and_look_with_you(library: SourceLibrary) -> None:
    """By default the opening shows the target's own eyeball: on `obama_1.mp4`'s blink
    (frame 162 against the open 33) the output's openness drops by nearly all the
    target's drop, and its eye band follows the target's fine structure (lashes, iris
    edge) more closely than the photo's own eyes do."""
    open_target, blink = clip_frames((33, 162))
    target_drop = openness(open_target) - openness(blink)
    drop = openness(swapped(library, open_target, "yours")) - openness(
        swapped(library, blink, "yours")
    )
    rows, cols = _eye_band(open_target)
    yours = _likeness(swapped(library, open_target, "yours")[rows, cols], open_target[rows, cols])
    photo = _likeness(swapped(library, open_target, "photo")[rows, cols], open_target[rows, cols])
    assert drop > 0.7 * target_drop, (target_drop, drop)
    assert yours > photo + 0.05, (yours, photo)


def test_the_iris_takes_the_sources_colour() -> None:
    """A brown iris on white, given a source whose eyes are blue (one of them squinted
    almost shut, its "iris" mostly pale lid and white): the iris turns the blue of the
    better-seen eye, its catchlight stays white, and the white around it (beyond the
    iris's edge) is left exactly as it was."""
    size, centre, radius = 41, 20.0, 8.0
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    t = np.hypot(x - centre, y - centre) / radius
    white = np.array([225, 230, 235], np.float32)
    brown = np.array([40, 70, 110], np.float32)
    blue = np.array([170, 110, 60], np.float32)
    pale = np.array([190, 195, 205], np.float32)
    eyeball = np.where((t < 1.0)[..., None], brown, white).astype(np.float32)
    glint = (np.abs(x - centre - 3) <= 1) & (np.abs(y - centre + 3) <= 1)
    eyeball[glint] = 250.0
    # The source's eyeball crops: eye width such that their iris radius is 8 px too.
    width = radius / eyes_module.IRIS_RADIUS
    corners = np.array([[centre - width / 2, centre], [centre + width / 2, centre]], np.float32)
    balls = tuple(
        Eyeball(
            np.where((t < 1.0)[..., None], c, white).astype(np.float32),
            (0.0, 0.0),
            (centre, centre),
            corners,
        )
        for c in (pale, blue)
    )
    colour = eyes_module.iris_colour(balls)
    assert colour is not None
    np.testing.assert_allclose(colour, blue)
    before = eyeball.copy()
    seen = np.ones((size, size), bool)
    eyes_module._recolour_iris(eyeball, seen, (centre, centre, radius), colour)
    iris = (t > 0.35) & (t < 0.85) & ~glint
    assert np.abs(eyeball[iris].mean(axis=0) - blue).max() < 12, eyeball[iris].mean(axis=0)
    assert np.abs(eyeball[glint] - 250.0).max() < 3, eyeball[glint]
    outside = t > 1.06
    np.testing.assert_allclose(eyeball[outside], before[outside], atol=0.5)


def test_the_lid_margin_is_the_targets_own_in_the_renders_colour() -> None:
    """Round an eye's opening the render carries the source's white lid make-up and
    dark eyeliner; the target's own margin (a thin lash line on its own, paler skin)
    replaces them out to `LID_MARGIN`, taking `LID_SHARE` of the colour change from
    the target's lid skin to the render's further out (the opening too: the eyeball is
    drawn over it next); beyond the margin the render is left exactly as it was."""
    size, width = 81, 40.0
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    opening = ((x - 40) / 20) ** 2 + ((y - 40) / 7) ** 2 <= 1.0
    apart = cv2.distanceTransform((~opening).astype(np.uint8), cv2.DIST_L2, 3) / width
    render_skin = np.array([60, 90, 140], np.float32)
    target_skin = np.array([120, 150, 200], np.float32)
    render = np.broadcast_to(render_skin, (size, size, 3)).copy()
    render[(apart > 0) & (apart < 0.05)] = 20.0  # eyeliner
    render[(apart >= 0.05) & (apart < 0.14)] = 235.0  # white lid make-up
    target = np.broadcast_to(target_skin, (size, size, 3)).copy()
    lash = (apart > 0) & (apart < 0.03)
    target[lash] = target_skin * 0.4
    before = render.copy()
    eyes_module._own_lid_margin(render, target, opening, width)
    gain = (render_skin / target_skin) ** eyes_module.LID_SHARE
    inner = (apart > 0.03) & (apart < eyes_module.LID_MARGIN[0])
    np.testing.assert_allclose(
        render[inner], np.broadcast_to(target_skin * gain, render[inner].shape), atol=1
    )
    np.testing.assert_allclose(
        render[lash], np.broadcast_to(target_skin * 0.4 * gain, render[lash].shape), atol=1
    )
    paint = (apart >= 0.05) & (apart < 0.14)
    # The make-up's excess over the margin's skin mostly gone (what is left fades out
    # with the margin).
    excess = (render[paint] - target_skin * gain).mean() / (235.0 - target_skin * gain).mean()
    assert excess < 0.4, excess
    beyond = apart >= eyes_module.LID_MARGIN[1]
    np.testing.assert_array_equal(render[beyond], before[beyond])
    np.testing.assert_allclose(render[opening], target[opening] * gain, atol=1e-3)


@pytest.mark.testdata
def test_a_sources_eye_make_up_gives_way_to_your_lids(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anon_inspireface_1423_1 wears white lid make-up over dark eyeliner. Swapped onto
    Grace Hopper with your own eyes, the band round the eyes follows Grace's own fine
    structure (lashes, lid line) more closely with her lid margin drawn than without.
    The eye surround (engine/swap/eye_surround.py), which takes part of the same
    make-up beyond the margin, is held off in both: with it, 0.66 against 0.62."""
    monkeypatch.setattr(eye_surround, "own_surround", lambda image, *_: image)
    target = read_image(GRACE)
    key = library.load_identity([dev("anon_inspireface_1423_1.jpg")]).key
    settings = EngineSettings(swap=SwapSettings(source_key=key))
    rows, cols = _eye_band(target)
    drawn = _likeness(swap_frame(library, settings, target).result[rows, cols], target[rows, cols])
    monkeypatch.setattr(eyes_module, "LID_MARGIN", (0.0, 0.0))
    bare = _likeness(swap_frame(library, settings, target).result[rows, cols], target[rows, cols])
    # Measured: 0.63 with the margin, 0.56 without; 0.65 and 0.58 by stop 48 (the face
    # rendered at 80 px between the eyes); at 64 (stop 49) 0.71 and 0.66: the coarser
    # render lets more of the frame's own fine structure through with or without it.
    assert drawn > bare + 0.03, (drawn, bare)


def _lab(bgr: np.ndarray) -> np.ndarray:
    pixel = np.asarray(bgr, np.float32).reshape(1, 1, 3) / 255.0
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab).reshape(3)


def test_a_red_or_mauve_iris_reading_comes_out_a_natural_iris_colour() -> None:
    """dflw_060's iris band read red (a* 20, b* 13) and dflw_021's mauve (a* 20, b* 6):
    their swaps' irises came out red on every target. Brown, blue and grey stay exactly
    as measured; a red reading keeps its lightness and b* and turns a warm brown."""
    for natural in ([40, 70, 110], [170, 110, 60], [31, 26, 23], [7, 41, 57]):
        colour = np.array(natural, np.float32)
        np.testing.assert_array_equal(eyes_module.plausible_iris(colour), colour)
    for red in ([42, 48, 94], [56, 51, 95], [90, 40, 120]):  # the last: purple
        before = _lab(np.array(red, np.float32))
        after = _lab(eyes_module.plausible_iris(np.array(red, np.float32)))
        assert after[0] == pytest.approx(before[0], abs=1.0)
        assert after[2] == pytest.approx(before[2], abs=1.5)
        limit = 0.7 * after[2] if after[2] > 0 else -0.1 * after[2]
        assert after[1] <= limit + 0.5
        assert after[1] < before[1] - 5.0


def _iris_lab(image: Frame, irises: np.ndarray) -> np.ndarray:
    """The median CIELAB colour of both irises' band (out of the pupil and the limbus)."""
    y, x = np.mgrid[0 : image.shape[0], 0 : image.shape[1]]
    band = np.zeros(image.shape[:2], bool)
    for cx, cy, radius in irises:
        t = np.hypot(x - cx, y - cy) / radius
        band |= (t > 0.4) & (t < 0.8)
    lab = cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    return np.median(lab[band], axis=0)


@pytest.mark.testdata
def test_a_reddish_sources_irises_do_not_come_out_red_or_mauve(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anon_dflw_021_1's iris band reads a* 20, b* 6 (its photo's warm cast); onto
    anon_dflw_051_1 the irises came out mauve. When written (the irises' band in the
    output, CIELAB): a* 4.0, b* 2.9 (a greyed brown) against a* 17.6, b* 3.2 without
    the hold."""
    wide = DEV_FACES.parent / "wide" / "faces"
    source, target = wide / "anon_dflw_021_1.jpg", wide / "anon_dflw_051_1.jpg"
    _, packet, face = swapped_pair(library, source, target)
    assert face.irises is not None
    held = _iris_lab(packet.result, face.irises)
    monkeypatch.setattr(eyes_module, "plausible_iris", lambda colour: colour)
    _, raw_packet, _ = swapped_pair(library, source, target)
    raw = _iris_lab(raw_packet.result, face.irises)
    assert raw[1] > 6.0  # the defect, as it was
    assert held[1] < raw[1] - 3.0


def test_an_iris_read_near_black_is_not_taken() -> None:
    """A source's iris albedo under L* 6 (lashes and the lid's shadow over a laughing or
    lowered eye) is not taken at all, one over L* 14 is taken in full, between them in
    part; taken in part, the target's iris moves that share of the way in CIELAB."""
    assert eyes_module.iris_trust(np.array([4, 5, 7], np.float32)) == 0.0  # L* 1.5
    assert eyes_module.iris_trust(np.array([31, 40, 55], np.float32)) == 1.0  # L* 17.5
    assert 0.0 < eyes_module.iris_trust(np.array([20, 24, 30], np.float32)) < 1.0  # L* 8.8
    size, centre, radius = 41, 20.0, 8.0
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    t = np.hypot(x - centre, y - centre) / radius
    brown = np.array([40, 70, 110], np.float32)
    blue = np.array([170, 110, 60], np.float32)
    iris = (t > 0.35) & (t < 0.85)
    seen = np.ones((size, size), bool)
    moved = {}
    for share in (0.5, 1.0):
        eyeball = np.where((t < 1.0)[..., None], brown, 230.0).astype(np.float32)
        eyes_module._recolour_iris(eyeball, seen, (centre, centre, radius), blue, share=share)
        moved[share] = _lab(eyeball[iris].mean(axis=0)) - _lab(brown)
    np.testing.assert_allclose(moved[0.5], moved[1.0] / 2, atol=1.0)


@pytest.mark.testdata
def test_a_laughing_sources_shut_eyes_do_not_blacken_the_targets_irises(
    library: SourceLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """anon_inspireface_2963_1 laughs with her eyes almost shut: her "iris" reads L* 5
    (her lashes). Onto lin_manuel_miranda_1 the irises came out black discs round the
    catchlight; now they are his own. When written (the irises' band, CIELAB L*):
    24.7 in the target, 23.7 now, 7.0 with the colour taken in full."""
    source = DEV_FACES / "anon_inspireface_2963_1.jpg"
    target = DEV_FACES / "lin_manuel_miranda_1.png"
    _, packet, face = swapped_pair(library, source, target)
    assert face.irises is not None
    kept = _iris_lab(packet.result, face.irises)[0]
    theirs = _iris_lab(read_image(target), face.irises)[0]
    monkeypatch.setattr(eyes_module, "iris_trust", lambda colour: 1.0)
    _, taken_packet, _ = swapped_pair(library, source, target)
    taken = _iris_lab(taken_packet.result, face.irises)[0]
    assert abs(kept - theirs) < 4.0
    assert taken < theirs - 12.0  # the defect, as it was
