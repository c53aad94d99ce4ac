"""The model wrappers on synthetic ONNX models: emap reading, pre/post-processing, IO binding,
fp16 variants and signature checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from engine.models import SignatureError
from engine.neural.arcface import ArcFaceEmbedder
from engine.neural.inswapper import InSwapper
from engine.neural.onnx_initializer import read_last_initializer
from engine.neural.restorer import FaceRestorer
from engine.neural.runner import OnnxRunner
from engine.neural.signature import check_signature
from tests.engine.neural_fakes import (
    emap_matrix,
    expected_embedding,
    expected_latent,
    expected_swap,
    make_arcface,
    make_gfpgan,
    make_inswapper,
)

RNG = np.random.default_rng(11)
CROP128 = RNG.integers(0, 256, (128, 128, 3), dtype=np.uint8)
CROP112 = RNG.integers(0, 256, (112, 112, 3), dtype=np.uint8)


@pytest.mark.parametrize("storage", ["raw", "float_data", "int32"])
def test_last_initializer_matches_the_onnx_package(tmp_path: Path, storage: str) -> None:
    path = make_inswapper(tmp_path / "swap.onnx", emap_storage=storage)
    name, emap = read_last_initializer(path)
    reference = numpy_helper.to_array(onnx.load(str(path)).graph.initializer[-1])
    assert name == "emap" and emap.dtype == np.float32 and emap.shape == (512, 512)
    np.testing.assert_array_equal(emap, reference.astype(np.float32))
    atol = 1e-3 if storage == "int32" else 0.0  # float16 storage rounds
    np.testing.assert_allclose(emap, emap_matrix(), atol=atol)


def test_unreadable_initializers_raise_signature_errors(tmp_path: Path) -> None:
    bare = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"])],
        "bare",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    onnx.save(helper.make_model(bare), str(tmp_path / "bare.onnx"))
    with pytest.raises(SignatureError, match="no initializers"):
        read_last_initializer(tmp_path / "bare.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"\xff" * 64)
    with pytest.raises(SignatureError, match=r"junk\.onnx"):
        read_last_initializer(tmp_path / "junk.onnx")
    model = onnx.load(str(make_inswapper(tmp_path / "swap.onnx")))
    onnx.save(
        model,
        str(tmp_path / "ext.onnx"),
        save_as_external_data=True,
        location="ext.data",
        size_threshold=0,
    )
    with pytest.raises(SignatureError, match="external data"):
        read_last_initializer(tmp_path / "ext.onnx")


def test_arcface_preprocessing_and_normalisation(tmp_path: Path) -> None:
    embedder = ArcFaceEmbedder.load(make_arcface(tmp_path / "arc.onnx"), provider="cpu")
    assert embedder.size == 112 and embedder.providers == ("CPUExecutionProvider",)
    embedding = embedder.embed_crop(CROP112)
    np.testing.assert_allclose(embedding, expected_embedding(CROP112), atol=1e-5)
    # BGR in, RGB to the model: swapping channels must change the result.
    assert not np.allclose(embedder.embed_crop(CROP112[:, :, ::-1]), embedding, atol=1e-3)


def test_inswapper_latent_and_swap_math(tmp_path: Path) -> None:
    swapper = InSwapper.load(make_inswapper(tmp_path / "swap.onnx"), provider="cpu")
    assert swapper.size == 128
    np.testing.assert_allclose(swapper.template[0], [38.2946 + 8, 51.6963], atol=1e-4)
    embedding = expected_embedding(CROP112)
    latent = swapper.latent(embedding * 5.0)
    np.testing.assert_allclose(latent, expected_latent(embedding), atol=1e-5)
    out = swapper.swap(CROP128, latent)
    assert out.dtype == np.float32 and out.shape == (128, 128, 3)
    np.testing.assert_allclose(out, expected_swap(CROP128, latent), atol=1e-3)


def test_io_binding_gives_the_same_result_as_run(tmp_path: Path) -> None:
    path = make_inswapper(tmp_path / "swap.onnx")
    plain = OnnxRunner.load(path, provider="cpu")
    bound = OnnxRunner.load(path, provider="cpu", io_binding=True)
    assert not plain.io_binding and bound.io_binding  # off by default on CPU
    latent = expected_latent(expected_embedding(CROP112))
    feeds = {"target": CROP128.transpose(2, 0, 1)[None] / 255.0, "source": latent[None]}
    np.testing.assert_array_equal(plain.run(feeds)[0], bound.run(feeds)[0])


def test_fp16_variant_runs_through_the_float32_interface(tmp_path: Path) -> None:
    swapper = InSwapper.load(make_inswapper(tmp_path / "swap16.onnx", half=True), provider="cpu")
    assert swapper.runner.half
    latent = expected_latent(expected_embedding(CROP112))
    out = swapper.swap(CROP128, latent)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected_swap(CROP128, latent), atol=0.5)  # fp16 rounding


def test_restorer_maps_minus_one_to_one_and_feeds_fidelity(tmp_path: Path) -> None:
    restorer = FaceRestorer.load(make_gfpgan(tmp_path / "gfpgan.onnx"), provider="cpu")
    crop = RNG.integers(0, 256, (512, 512, 3), dtype=np.uint8)
    np.testing.assert_allclose(restorer.restore(crop), 255.0 - crop, atol=1e-3)
    weighted = FaceRestorer.load(
        make_gfpgan(tmp_path / "codeformer.onnx", with_weight=True), provider="cpu", fidelity=0.25
    )
    expected = (1.0 - (crop / 127.5 - 1.0) * 0.25) * 127.5
    np.testing.assert_allclose(weighted.restore(crop), expected, atol=1e-3)


def test_signatures_are_checked_per_family(tmp_path: Path) -> None:
    arcface = make_arcface(tmp_path / "arc.onnx")
    swapper = make_inswapper(tmp_path / "swap.onnx")
    gfpgan = make_gfpgan(tmp_path / "gfpgan.onnx", size=256)
    check_signature(arcface, "arcface")
    check_signature(swapper, "inswapper")
    check_signature(gfpgan, "gfpgan")
    with pytest.raises(SignatureError, match="inswapper model takes"):
        check_signature(arcface, "inswapper")
    with pytest.raises(SignatureError, match="ArcFace model takes one"):
        check_signature(swapper, "arcface")
    with pytest.raises(SignatureError, match="unknown model family"):
        check_signature(gfpgan, "upscaler")
    odd = make_gfpgan(tmp_path / "odd.onnx", size=100)
    with pytest.raises(SignatureError, match="multiple of 128"):
        check_signature(odd, "gfpgan")
