"""The 3DMM-style fit: pose (exact on synthetic meshes, sign-consistent on mirrored
photos), spherical-harmonics lighting (exact data and a synthetically relit real face),
and the canonical neutral mesh everything is measured against."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.types import Frame, Landmarks
from engine.face.analyzer import FaceAnalyzer
from engine.face.fit import EXPRESSION_NAMES, FaceFitter, vertex_normals
from engine.face.mesh import CANONICAL_FILE, canonical_neutral, topology
from engine.face.procrustes import euler_deg, rotation_from_euler_deg, similarity
from engine.face.sh import fit_sh, light_direction, sh_basis, shading
from engine.render.raster import rasterize_attributes
from tests.engine.face_data import BUNDLED, inter_ocular, load, single_person_params


@pytest.fixture(scope="module")
def analyzer() -> FaceAnalyzer:
    return FaceAnalyzer.bundled()


@pytest.fixture(scope="module")
def fitter() -> FaceFitter:
    return FaceFitter()


def main_landmarks(analyzer: FaceAnalyzer, frame: Frame) -> Landmarks:
    faces = analyzer.analyze_image(frame)
    assert faces, "no face found"
    landmarks = faces[0].landmarks
    assert landmarks is not None
    return landmarks


def posed_canonical(yaw: float, pitch: float, roll: float, scale: float = 90.0) -> Landmarks:
    """The canonical face turned by known angles and placed in a frame, as a mesh would be."""
    r = rotation_from_euler_deg(yaw, pitch, roll)
    points = scale * canonical_neutral() @ r.T + np.array([320.0, 240.0, 0.0])
    return points.astype(np.float32)


def unit(v: tuple[float, float, float]) -> np.ndarray:
    a = np.asarray(v, np.float64)
    return a / np.linalg.norm(a)


def angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


# --- pose -------------------------------------------------------------------------------------


@pytest.mark.parametrize("angles", [(0, 0, 0), (25, -10, 15), (-40, 20, -5), (10, 35, 80)])
def test_euler_angles_roundtrip(angles: tuple[float, float, float]) -> None:
    r = rotation_from_euler_deg(*angles)
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(euler_deg(r), angles, atol=1e-9)


def test_similarity_recovers_a_known_transform() -> None:
    rng = np.random.default_rng(0)
    src = rng.normal(size=(60, 3))
    r = rotation_from_euler_deg(30, -20, 10)
    dst = 2.5 * src @ r.T + (4.0, -1.0, 7.0)
    s, r_fit, t = similarity(src, dst, rng.uniform(0.5, 1.5, 60))
    assert s == pytest.approx(2.5)
    np.testing.assert_allclose(r_fit, r, atol=1e-9)
    np.testing.assert_allclose(t, (4.0, -1.0, 7.0), atol=1e-9)
    # A mirror image is not a rotation: the fit stays a proper rotation.
    _, r_mirror, _ = similarity(src, dst * (-1.0, 1.0, 1.0))
    assert np.linalg.det(r_mirror) == pytest.approx(1.0)


@pytest.mark.parametrize("angles", [(0, 0, 0), (20, -10, 15), (-35, 15, -25)])
def test_fit_recovers_the_pose_of_a_turned_canonical_face(
    fitter: FaceFitter, angles: tuple[float, float, float]
) -> None:
    fit = fitter.fit(None, posed_canonical(*angles))
    pose = fit.pose
    assert (pose.yaw_deg, pose.pitch_deg, pose.roll_deg) == pytest.approx(angles, abs=0.01)
    assert pose.scale == pytest.approx(90.0, rel=1e-4)
    # Pose removed, nothing is left: no identity offset, a neutral expression.
    assert np.abs(fit.identity).max() < 1e-4
    assert fit.expression.shape == (len(EXPRESSION_NAMES),)
    assert np.abs(fit.expression).max() < 1e-4
    assert fit.lighting.shape == (9, 3)


@pytest.mark.parametrize("path", single_person_params())
def test_yaw_and_roll_change_sign_on_a_mirrored_photo(
    analyzer: FaceAnalyzer, fitter: FaceFitter, path: Path
) -> None:
    frame = load(path)
    pose = fitter.fit(frame, main_landmarks(analyzer, frame)).pose
    flipped = cv2.flip(frame, 1)
    mirrored = fitter.fit(flipped, main_landmarks(analyzer, flipped)).pose
    print(
        f"{path.name}: yaw {pose.yaw_deg:+.1f} / {mirrored.yaw_deg:+.1f}, "
        f"roll {pose.roll_deg:+.1f} / {mirrored.roll_deg:+.1f}"
    )
    # Mirroring turns yaw and roll over and leaves pitch: equal and opposite within the
    # mesh model's own left/right asymmetry (measured: yaw, roll under 2°, pitch 4°).
    for ours, theirs in ((pose.yaw_deg, mirrored.yaw_deg), (pose.roll_deg, mirrored.roll_deg)):
        assert abs(ours + theirs) < 4.0
        if abs(ours) > 3.0:
            assert np.sign(ours) == -np.sign(theirs)
    assert mirrored.pitch_deg == pytest.approx(pose.pitch_deg, abs=6.0)


@pytest.mark.parametrize("angles", [(20, -10, 15), (-35, 5, -25)])
def test_yaw_and_roll_change_sign_on_a_mirrored_mesh(
    fitter: FaceFitter, angles: tuple[float, float, float]
) -> None:
    """What a flipped image's mesh is: x reflected and every point swapped with its
    left/right twin. The fit must turn yaw and roll over exactly and keep pitch."""
    landmarks = posed_canonical(*angles)
    mirrored = landmarks[topology().mirror] * np.array([-1.0, 1.0, 1.0], np.float32)
    mirrored[:, 0] += 640.0
    pose = fitter.fit(None, mirrored).pose
    yaw, pitch, roll = angles
    assert (pose.yaw_deg, pose.pitch_deg, pose.roll_deg) == pytest.approx(
        (-yaw, pitch, -roll), abs=0.01
    )


# --- spherical harmonics ----------------------------------------------------------------------


def sphere_normals(count: int = 4000) -> np.ndarray:
    """Evenly spread unit vectors (Fibonacci lattice): sums over them approximate
    integrals over the sphere, where the SH bands are orthogonal."""
    k = np.arange(count) + 0.5
    z = 1.0 - 2.0 * k / count
    phi = k * math.pi * (3.0 - math.sqrt(5.0))
    r = np.sqrt(1.0 - z * z)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


def test_sh_basis_is_orthonormal_over_the_sphere() -> None:
    basis = sh_basis(sphere_normals()).astype(np.float64)
    gram = basis.T @ basis * (4 * math.pi / len(basis))
    np.testing.assert_allclose(gram, np.eye(9), atol=1e-3)


def test_fit_sh_recovers_known_coefficients() -> None:
    normals = sphere_normals()
    coeffs = np.random.default_rng(2).normal(size=(9, 3)).astype(np.float32)
    colours = sh_basis(normals) @ coeffs
    np.testing.assert_allclose(fit_sh(normals, colours, ridge=0.0), coeffs, atol=1e-4)
    # The default ridge only damps the second band; ambient and direction are untouched.
    damped = fit_sh(normals, colours)
    np.testing.assert_allclose(damped[:4], coeffs[:4], atol=1e-3)
    assert np.abs(damped[4:]).sum() < 0.8 * np.abs(coeffs[4:]).sum()


@pytest.mark.parametrize("light", [(-1, 0, -1), (1, 0, -1), (0, -1, -1), (0, 0, -1), (1, 1, 0)])
def test_light_direction_of_a_lambertian_sphere(light: tuple[float, float, float]) -> None:
    normals = sphere_normals()
    direction = unit(light)
    radiance = 0.2 + np.clip(normals @ direction, 0.0, None)
    coeffs = fit_sh(normals, np.stack([radiance] * 3, axis=1), ridge=0.0)
    assert angle_deg(light_direction(coeffs), direction) < 1.0
    # Normalised shading is 1 where only the ambient term lights the face.
    flat = np.zeros((9, 3), np.float32)
    flat[0] = 50.0
    np.testing.assert_allclose(shading(normals, flat), 1.0, atol=1e-6)


def relit(frame: Frame, landmarks: Landmarks, triangles: np.ndarray, light: np.ndarray) -> Frame:
    """The photo with its face replaced by grey skin lit by one distant light (Lambert,
    plus ambient): per-pixel normals interpolated over the mesh."""
    normals = vertex_normals(landmarks, triangles)
    n, face = rasterize_attributes(
        landmarks[:, :2], landmarks[:, 2], triangles, normals, frame.shape[:2]
    )
    n /= np.maximum(np.linalg.norm(n, axis=2, keepdims=True), 1e-9)
    shade = 0.3 + np.clip(n @ light, 0.0, None)
    albedo = np.array([110.0, 125.0, 150.0])  # BGR skin-like grey
    out = frame.copy()
    out[face] = np.clip(shade[face][:, None] * albedo, 0, 255).astype(np.uint8)
    return out


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
@pytest.mark.parametrize(
    "light",
    [(-1, 0, -1), (1, 0, -1), (0, -1, -1), (0, 0, -1), (0, 1, -1)],
    ids=["left", "right", "above", "front", "below"],
)
def test_lighting_fit_recovers_the_light_on_a_relit_face(
    analyzer: FaceAnalyzer,
    fitter: FaceFitter,
    path: Path,
    light: tuple[float, float, float],
) -> None:
    frame = load(path)
    landmarks = main_landmarks(analyzer, frame)
    direction = unit(light)
    image = relit(frame, landmarks, fitter.triangles, direction)
    coeffs = fitter.fit(image, landmarks).lighting
    np.testing.assert_array_equal(coeffs, fitter.lighting(image, landmarks))
    found = light_direction(coeffs)
    # Measured 1-12°: a face shows a narrow range of normals.
    assert angle_deg(found, direction) < 15.0, (found, direction)


def test_lighting_fit_on_the_untouched_photo_is_plausible(
    analyzer: FaceAnalyzer, fitter: FaceFitter
) -> None:
    frame = load(BUNDLED[0])
    coeffs = fitter.lighting(frame, main_landmarks(analyzer, frame))
    assert coeffs.shape == (9, 3)
    assert coeffs.dtype == np.float32
    assert np.all(coeffs[0] > 0)  # some ambient light in every channel
    # Lit from the front half-space, as portraits are.
    assert light_direction(coeffs)[2] < 0


# --- canonical neutral mesh -------------------------------------------------------------------


def test_canonical_mesh_is_left_right_symmetric() -> None:
    canon = canonical_neutral()
    mirror = topology().mirror  # from MediaPipe's own model, not from our mesh
    assert canon.shape == (468, 3)
    np.testing.assert_allclose(canon[mirror] * (-1.0, 1.0, 1.0), canon, atol=1e-4)
    on_plane = mirror == np.arange(468)
    assert np.abs(canon[on_plane, 0]).max() < 1e-4


def test_canonical_mesh_has_unit_eye_distance_and_faces_the_camera() -> None:
    canon = canonical_neutral()
    assert inter_ocular(canon) == pytest.approx(1.0, abs=1e-4)
    np.testing.assert_allclose(canon.mean(axis=0)[:1], 0.0, atol=1e-6)
    nose_tip = canon[1]
    for cheek in (50, 280, 234, 454):  # cheeks and the sides of the face
        assert nose_tip[2] < canon[cheek, 2] - 0.3
    for point in (33, 263, 10):  # eye corners, forehead
        assert nose_tip[2] < canon[point, 2]
    assert canon[10, 1] < canon[1, 1] < canon[152, 1]  # forehead above nose above chin
    assert canon[33, 0] < 0 < canon[263, 0]  # subject's right eye on the image's left
    # Front-facing triangles: the fitter's winding gives the nose a normal to the camera.
    normals = vertex_normals(canon, FaceFitter().triangles)
    assert normals[1, 2] < -0.9


def test_canonical_mesh_provenance_names_the_bundled_portraits() -> None:
    provenance = json.loads(str(np.load(CANONICAL_FILE)["provenance"]))
    sources = {item["file"]: item["sha256"] for item in provenance["derived_from"]}
    assert set(sources) == {p.name for p in BUNDLED}
    for path in BUNDLED:
        assert sources[path.name] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert provenance["script"] == "derive_canonical_mesh.py"


def test_canonical_mesh_is_reproduced_by_its_script(
    repo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = repo_root / "tools" / "derive_canonical_mesh.py"
    spec = importlib.util.spec_from_file_location("derive_canonical_mesh", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "canonical_neutral.npz"
    monkeypatch.setattr(module, "CANONICAL_FILE", out)  # write beside, never over, the file
    module.main()
    np.testing.assert_allclose(
        np.load(out)["vertices"], np.load(CANONICAL_FILE)["vertices"], atol=2e-3
    )
