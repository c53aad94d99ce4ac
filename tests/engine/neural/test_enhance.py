"""The neural enhancer stage with a synthetic GFPGAN-style model (it inverts colours), so
the change it makes to a face's patch is known exactly where the crop covers the face."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.face_records import Face, FacePatch
from engine.core.packet import FramePacket, NeuralRun
from engine.core.settings import EngineSettings, EnhancerSettings, ModelSettings
from engine.models import ModelMissingError, ModelStore, SignatureError
from engine.neural.align import FFHQ_512, five_points_from_mesh, similarity_transform
from engine.neural.signature import register_user_model
from engine.stages.base import Stage
from engine.stages.neural_enhance import NeuralEnhanceStage
from tests.engine.neural_fakes import FACES_DIR, make_gfpgan, reference_landmarks

pytestmark = pytest.mark.testdata


@pytest.fixture(scope="module")
def face() -> tuple[np.ndarray, np.ndarray]:
    path = FACES_DIR / "lin_manuel_miranda_1.png"
    if not path.is_file():
        pytest.skip("../shared/testdata is absent")
    image = cv2.imread(str(path))
    (landmarks,) = reference_landmarks(image)
    # A smooth frame: resampling to the crop and back is then nearly lossless, so what is
    # left to check is the model's effect.
    return cv2.GaussianBlur(image, (0, 0), 3.0), landmarks


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_gfpgan(tmp_path_factory.mktemp("gfpgan") / "fake_gfpgan.onnx")


def _settings(model: Path | str, mode: str = "neural", strength: float = 1.0) -> EngineSettings:
    return EngineSettings(
        enhancer=EnhancerSettings(mode=mode, strength=strength),  # type: ignore[arg-type]
        models=ModelSettings(provider="cpu", enhancer_model=str(model)),
    )


def _packet(frame: np.ndarray, landmarks: np.ndarray) -> FramePacket:
    """A face with a patch over its box, as a swap would leave. The patch shows a smooth
    pattern unlike the frame, so reading or writing it at the wrong place shows."""
    x0, y0 = (landmarks[:, :2].min(axis=0) - 20).astype(int)
    x1, y1 = (landmarks[:, :2].max(axis=0) + 20).astype(int)
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    wave = 127.0 + 100.0 * np.sin(2 * np.pi * xs / 24) * np.sin(2 * np.pi * ys / 31)
    image = np.dstack([wave, wave[::-1], 255.0 - wave]).astype(np.float32)
    patch = FacePatch(int(x0), int(y0), image, np.ones(image.shape[:2], np.float32))
    return FramePacket(1, 0, frame, faces=[Face(0, landmarks=landmarks, patch=patch), Face(1)])


def _inner(landmarks: np.ndarray, patch: FacePatch) -> tuple[slice, slice]:
    """The middle of the face (between the eyes and the mouth), in patch coordinates."""
    centre = landmarks[[4, 33, 263, 61, 291], :2].mean(axis=0) - (patch.x0, patch.y0)
    half = 0.15 * float(np.ptp(landmarks[:, 0]))
    cx, cy = centre.astype(int)
    return slice(int(cy - half), int(cy + half)), slice(int(cx - half), int(cx + half))


@pytest.mark.parametrize(("strength", "expected"), [(1.0, "inverted"), (0.5, "grey")])
def test_restoration_is_blended_into_the_patch(
    face, model: Path, strength: float, expected: str
) -> None:
    frame, landmarks = face
    stage = NeuralEnhanceStage.from_settings(_settings(model), ModelStore())
    assert isinstance(stage, Stage) and stage.name == "neural_enhancer"
    assert stage.providers() == ("CPUExecutionProvider",)
    packet = _packet(frame, landmarks)
    patch = packet.faces[0].patch
    assert patch is not None
    before = patch.image.copy()
    stage.process(packet, _settings(model, strength=strength))
    rows, cols = _inner(landmarks, patch)
    want = (
        255.0 - before[rows, cols]
        if expected == "inverted"
        else np.full_like(before[rows, cols], 127.5)
    )
    error = np.abs(patch.image[rows, cols] - want)
    assert np.median(error) < 1.5 and error.max() < 12.0
    assert patch.image.dtype == np.float32 and patch.image.min() >= 0 and patch.image.max() <= 255
    np.testing.assert_array_equal(patch.mask, 1.0)  # the enhancer changes pixels, not masks
    assert packet.output is None
    assert packet.neural_enhance == NeuralRun(str(model), 1, user_supplied=True)


def test_restored_face_lands_where_the_face_is(face, tmp_path: Path) -> None:
    """A model that changes only a small disc at the template's nose: the change must show
    up where the aligned crop's nose point falls in the frame (alignment and paste-back
    agree), close to the mesh's own nose point (the five-point fit's residual)."""
    frame, landmarks = face
    nose = FFHQ_512[2]
    model = make_gfpgan(tmp_path / "spot.onnx", spot=(float(nose[0]), float(nose[1]), 8.0))
    stage = NeuralEnhanceStage.from_settings(_settings(model), ModelStore())
    packet = _packet(frame, landmarks)
    patch = packet.faces[0].patch
    assert patch is not None
    before = patch.image.copy()
    stage.process(packet, _settings(model))
    changed = np.abs(patch.image - before).max(axis=2) > 40.0
    ys, xs = np.nonzero(changed)
    assert len(xs) > 20
    centre = np.array([xs.mean() + patch.x0, ys.mean() + patch.y0])
    points = five_points_from_mesh(landmarks)
    inverse = cv2.invertAffineTransform(similarity_transform(points, FFHQ_512))
    expected = inverse @ np.array([nose[0], nose[1], 1.0])
    assert np.linalg.norm(centre - expected) < 1.5, (centre, expected)
    assert np.linalg.norm(centre - points[2]) < 0.1 * np.ptp(landmarks[:, 0])
    assert np.ptp(xs) < 40 and np.ptp(ys) < 40  # one small spot, nothing elsewhere


def test_only_in_neural_mode(face, model: Path) -> None:
    frame, landmarks = face
    stage = NeuralEnhanceStage.from_settings(_settings(model), ModelStore())
    for mode in ("off", "builtin"):
        packet = _packet(frame, landmarks)
        patch = packet.faces[0].patch
        assert patch is not None
        before = patch.image.copy()
        stage.process(packet, _settings(model, mode=mode))
        np.testing.assert_array_equal(patch.image, before)
        assert packet.neural_enhance is None


def test_registered_model_is_loaded_by_name(tmp_path: Path, model: Path) -> None:
    store = ModelStore(data_dir=tmp_path)
    spec = register_user_model(store, model, "gfpgan", name="my-gfpgan")
    stage = NeuralEnhanceStage.from_settings(_settings("my-gfpgan"), store)
    assert stage.model.label == spec.name and stage.model.user_supplied


def test_missing_or_wrong_enhancer_model_is_reported(tmp_path: Path) -> None:
    store = ModelStore(data_dir=tmp_path)
    with pytest.raises(ModelMissingError, match="fusecam models add PATH --family gfpgan"):
        NeuralEnhanceStage.from_settings(_settings(""), store)
    with pytest.raises(ModelMissingError, match="does not exist"):
        NeuralEnhanceStage.from_settings(_settings(tmp_path / "absent.onnx"), store)
    with pytest.raises(SignatureError, match="not 'gfpgan'"):
        NeuralEnhanceStage.from_settings(_settings("w600k_r50"), store)
