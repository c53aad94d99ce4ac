"""The neural swapper stage on synthetic models and real faces (MediaPipe reference mesh).

The synthetic inswapper adds a per-channel offset computed from the latent, so the patch
it leaves must equal that offset applied to the aligned crop, warped back: this checks the
alignment, the latent (projection, averaging, alpha) and the paste-back together.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.core.face_records import Face
from engine.core.packet import FramePacket
from engine.core.settings import EngineSettings, ModelSettings, SwapSettings
from engine.models import Manifest, ModelMissingError, ModelSpec, ModelStore
from engine.neural.align import (
    arcface_template,
    back_region,
    five_points_from_mesh,
    similarity_transform,
    warp_back,
    warp_crop,
)
from engine.neural.latent import blend, normalise
from engine.stages.base import Stage
from engine.stages.neural_swap import NeuralSwapStage
from tests.engine.neural_fakes import (
    FACES_DIR,
    expected_embedding,
    expected_latent,
    expected_swap,
    make_arcface,
    make_inswapper,
    reference_landmarks,
)

pytestmark = pytest.mark.testdata


@dataclass
class Photos:
    images: list[np.ndarray]
    landmarks: list[np.ndarray]


@dataclass
class Library:
    """The SourceLibrary's lookup shape; counts lookups to check the latent cache."""

    entries: dict[str, Photos]
    calls: list[str] = field(default_factory=list)

    def get(self, key: str) -> Photos | None:
        self.calls.append(key)
        return self.entries.get(key)


def _face(name: str) -> tuple[np.ndarray, np.ndarray]:
    path = FACES_DIR / name
    if not path.is_file():
        pytest.skip("../shared/testdata is absent")
    image = cv2.imread(str(path))
    (landmarks,) = reference_landmarks(image)
    return image, landmarks


@pytest.fixture(scope="module")
def faces() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {n: _face(n) for n in ("obama_1.jpg", "biden_1.jpg", "biden_2.jpg")}


def _spec(path: Path, family: str, input_: dict[str, object]) -> ModelSpec:
    data = path.read_bytes()
    return ModelSpec(
        name=path.stem,
        file=path.name,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        urls=(f"https://example.org/{path.name}",),
        licence="test",
        family=family,
        input=input_,  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ModelStore:
    data = tmp_path_factory.mktemp("data")
    models = data / "models"
    models.mkdir()
    swapper = make_inswapper(models / "fake_swapper.onnx")
    arcface = make_arcface(models / "fake_arcface.onnx")
    manifest = Manifest(
        (
            _spec(swapper, "inswapper", {"mean": 0.0, "std": 255.0}),
            _spec(arcface, "arcface", {"mean": 127.5, "std": 127.5}),
        )
    )
    return ModelStore(manifest, data_dir=data)


def _settings(**swap: object) -> EngineSettings:
    return EngineSettings(
        swap=SwapSettings(**swap),  # type: ignore[arg-type]
        models=ModelSettings(
            provider="cpu", swapper_model="fake_swapper", recognition_model="fake_arcface"
        ),
    )


def _stage(store: ModelStore, library: Library) -> NeuralSwapStage:
    return NeuralSwapStage.from_settings(_settings(), library, store)


def _source_embedding(photos: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    template = arcface_template(112)
    units = []
    for image, landmarks in photos:
        affine = similarity_transform(five_points_from_mesh(landmarks), template)
        units.append(expected_embedding(warp_crop(image, affine, 112)))
    return normalise(np.mean(units, axis=0))


def _expected_patch(frame: np.ndarray, landmarks: np.ndarray, latent: np.ndarray):
    points = five_points_from_mesh(landmarks)
    affine = similarity_transform(points, arcface_template(128))
    region = back_region(affine, 128, frame.shape)
    swapped = expected_swap(warp_crop(frame, affine, 128), latent)
    return region, swapped, warp_back(swapped, affine, region), points


def test_stage_leaves_the_expected_patch(store: ModelStore, faces) -> None:
    frame, landmarks = faces["obama_1.jpg"]
    library = Library({"biden": Photos([faces["biden_1.jpg"][0]], [faces["biden_1.jpg"][1]])})
    stage = _stage(store, library)
    assert isinstance(stage, Stage) and stage.name == "neural_swapper"
    assert stage.providers() == ("CPUExecutionProvider",)
    packet = FramePacket(1, 0, frame, faces=[Face(0, landmarks=landmarks)])
    stage.process(packet, _settings(source_key="biden"))

    assert packet.output is None  # compositing is the compositor's job
    patch = packet.faces[0].patch
    assert patch is not None
    latent = expected_latent(_source_embedding([faces["biden_1.jpg"]]))
    region, swapped, expected, points = _expected_patch(frame, landmarks, latent)
    assert (patch.x0, patch.y0) == region[:2] and patch.shape == expected.shape[:2]
    assert patch.image.dtype == np.float32
    np.testing.assert_allclose(patch.image, expected, atol=0.05)
    # Independent of the warp helpers: the target's nose in the frame shows the swapped
    # crop's pixel at the template's nose.
    nose_frame = np.round(points[2]).astype(int) - region[:2]
    nose_crop = np.round(arcface_template(128)[2]).astype(int)
    offset = points[2] - np.round(points[2])  # sub-pixel: compare with a local average
    assert np.abs(offset).max() <= 0.5
    local = patch.image[
        nose_frame[1] - 1 : nose_frame[1] + 2, nose_frame[0] - 1 : nose_frame[0] + 2
    ]
    crop_local = swapped[nose_crop[1] - 2 : nose_crop[1] + 3, nose_crop[0] - 2 : nose_crop[0] + 3]
    assert np.abs(local.mean(axis=(0, 1)) - crop_local.mean(axis=(0, 1))).max() < 12.0
    # The mask: full inside the face, zero at the region's corners, and cut to the face
    # oval: less than the crop's own square.
    assert patch.mask.dtype == np.float32 and 0.0 <= patch.mask.min() <= patch.mask.max() <= 1.0
    assert patch.mask[nose_frame[1], nose_frame[0]] == 1.0 and patch.mask[0, 0] == 0.0
    square = (np.abs(expected).sum(axis=2) > 0).sum()
    assert 0.25 * square < patch.mask.sum() < 0.7 * square  # measured: 0.38 here
    # The target's mouth interior is marked to keep, around the mouth.
    assert patch.keep_mask is not None and patch.keep_mask.max() > 0.9
    ys, xs = np.nonzero(patch.keep_mask > 0.5)
    mouth = (points[3] + points[4]) / 2 - region[:2]
    assert abs(xs.mean() - mouth[0]) < 10 and abs(ys.mean() - mouth[1]) < 15
    assert packet.neural_swap is not None and packet.neural_swap.faces == 1
    packet = FramePacket(2, 0, frame, faces=[Face(0, landmarks=landmarks)])
    stage.process(packet, _settings(source_key="biden", keep_mouth_interior=False))
    assert packet.faces[0].patch is not None and packet.faces[0].patch.keep_mask is None


def test_latent_blend_mixes_in_the_targets_own_latent(store: ModelStore, faces) -> None:
    frame, landmarks = faces["obama_1.jpg"]
    library = Library({"biden": Photos([faces["biden_1.jpg"][0]], [faces["biden_1.jpg"][1]])})
    stage = _stage(store, library)
    source = expected_latent(_source_embedding([faces["biden_1.jpg"]]))
    target = expected_latent(_source_embedding([faces["obama_1.jpg"]]))
    for mix, latent in [(0.0, target), (0.3, blend(target, source, 0.3))]:
        packet = FramePacket(1, 0, frame, faces=[Face(0, landmarks=landmarks)])
        # The built-in swapper's cross-fade does nothing here.
        stage.process(packet, _settings(source_key="biden", latent_blend=mix, blend=0.0))
        patch = packet.faces[0].patch
        assert patch is not None
        _, _, expected, _ = _expected_patch(frame, landmarks, latent)
        np.testing.assert_allclose(patch.image, expected, atol=0.05)


def test_photos_of_one_person_average_and_are_cached(store: ModelStore, faces) -> None:
    frame, landmarks = faces["obama_1.jpg"]
    photos = [faces["biden_1.jpg"], faces["biden_2.jpg"]]
    library = Library({"biden": Photos([p[0] for p in photos], [p[1] for p in photos])})
    stage = _stage(store, library)
    latent = stage.source_latent("biden")
    assert latent is not None
    np.testing.assert_allclose(latent, expected_latent(_source_embedding(photos)), atol=1e-5)
    single = expected_latent(_source_embedding(photos[:1]))
    assert not np.allclose(latent, single, atol=1e-3)  # the second photo counts
    for frame_id in range(3):
        packet = FramePacket(frame_id, 0, frame, faces=[Face(0, landmarks=landmarks)])
        stage.process(packet, _settings(source_key="biden"))
    assert library.calls == ["biden"]  # embedded once, then cached


def test_a_missing_source_leaves_faces_alone(store: ModelStore, faces) -> None:
    frame, landmarks = faces["obama_1.jpg"]
    stage = _stage(store, Library({}))
    packet = FramePacket(1, 0, frame, faces=[Face(0, landmarks=landmarks), Face(1)])
    stage.process(packet, _settings(source_key="nobody", face_selection="all"))
    assert all(face.patch is None for face in packet.faces)
    assert packet.neural_swap is not None
    assert packet.neural_swap.missing_sources == ("nobody", "nobody")
    # (Swap off is the selector's: tests/engine/stages/test_contract.py.)


def test_missing_model_names_the_fix(tmp_path: Path) -> None:
    store = ModelStore(data_dir=tmp_path)  # the repository manifest, nothing downloaded
    settings = EngineSettings(models=ModelSettings(provider="cpu"))
    with pytest.raises(ModelMissingError, match="fusecam models download inswapper_128"):
        NeuralSwapStage.from_settings(settings, Library({}), store)
