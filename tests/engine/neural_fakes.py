"""Synthetic stand-ins for the neural models, built with the `onnx` package.

The real weights (inswapper_128, w600k_r50, GFPGAN) cannot be downloaded here, so these
models have the same input/output names, shapes and dtypes, and compute something simple
and checkable from their inputs; `expected_*` compute the same thing in NumPy.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import onnx
from numpy.typing import NDArray
from onnx import TensorProto, helper, numpy_helper

from engine.core.types import F32

OPSET = [helper.make_opsetid("", 17)]
POOL = 14  # fake ArcFace: 112/14 = 8×8 cells per channel → 192 features


def _save(graph: onnx.GraphProto, path: Path) -> Path:
    model = helper.make_model(graph, opset_imports=OPSET)
    model.ir_version = 9
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def arcface_weights(seed: int = 1) -> F32:
    return np.random.default_rng(seed).normal(size=(3 * 8 * 8, 512)).astype(np.float32)


def make_arcface(path: Path, seed: int = 1) -> Path:
    """[N,3,112,112] → [N,512] = flatten(8×8 average pool) @ W (not normalised, like ArcFace)."""
    weights = arcface_weights(seed)
    graph = helper.make_graph(
        [
            helper.make_node(
                "AveragePool",
                ["input.1"],
                ["pooled"],
                kernel_shape=[POOL, POOL],
                strides=[POOL, POOL],
            ),
            helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
            helper.make_node("MatMul", ["flat", "W"], ["683"]),
        ],
        "fake_arcface",
        [helper.make_tensor_value_info("input.1", TensorProto.FLOAT, ["None", 3, 112, 112])],
        [helper.make_tensor_value_info("683", TensorProto.FLOAT, ["None", 512])],
        [numpy_helper.from_array(weights, "W")],
    )
    return _save(graph, path)


def expected_embedding(crop_bgr: NDArray[np.generic], seed: int = 1) -> F32:
    rgb = (np.asarray(crop_bgr, np.float32)[:, :, ::-1] - 127.5) / 127.5
    pooled = rgb.reshape(8, POOL, 8, POOL, 3).mean(axis=(1, 3))  # 8×8×3
    flat = pooled.transpose(2, 0, 1).reshape(-1)
    embedding = flat @ arcface_weights(seed)
    return (embedding / np.linalg.norm(embedding)).astype(np.float32)


@cache
def emap_matrix(seed: int = 2) -> F32:
    """Well conditioned but not orthogonal, so the projection must renormalise."""
    noise = np.random.default_rng(seed).normal(scale=0.05, size=(512, 512))
    matrix = (np.eye(512) + noise).astype(np.float32)
    matrix.flags.writeable = False
    return matrix


def latent_weights(seed: int = 3) -> F32:
    return np.random.default_rng(seed).normal(scale=0.5, size=(512, 3)).astype(np.float32)


def make_inswapper(
    path: Path, *, half: bool = False, emap_storage: str = "raw", size: int = 128
) -> Path:
    """target [1,3,S,S] + source [1,512] → target + (source @ P) per channel (RGB, 0..1).
    Like inswapper_128, the last initializer is the 512×512 emap, unused by the graph."""
    dtype = TensorProto.FLOAT16 if half else TensorProto.FLOAT
    np_dtype = np.float16 if half else np.float32
    emap = emap_matrix()
    if emap_storage == "raw":
        emap_tensor = numpy_helper.from_array(emap.astype(np_dtype), "emap")
    elif emap_storage == "float_data":
        emap_tensor = helper.make_tensor("emap", TensorProto.FLOAT, emap.shape, emap.ravel())
    else:  # float16 values as bit patterns in int32_data, as some exporters write them
        emap_tensor = helper.make_tensor(
            "emap", TensorProto.FLOAT16, emap.shape, emap.astype(np.float16).ravel()
        )
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["source", "P"], ["shift"]),
            helper.make_node("Reshape", ["shift", "shape"], ["shift4"]),
            helper.make_node("Add", ["target", "shift4"], ["output"]),
        ],
        "fake_inswapper",
        [
            helper.make_tensor_value_info("target", dtype, [1, 3, size, size]),
            helper.make_tensor_value_info("source", dtype, [1, 512]),
        ],
        [helper.make_tensor_value_info("output", dtype, [1, 3, size, size])],
        [
            numpy_helper.from_array(latent_weights().astype(np_dtype), "P"),
            numpy_helper.from_array(np.array([1, 3, 1, 1], np.int64), "shape"),
            emap_tensor,
        ],
    )
    return _save(graph, path)


def expected_swap(crop_bgr: NDArray[np.generic], latent: F32) -> F32:
    rgb = np.asarray(crop_bgr, np.float32)[:, :, ::-1] / 255.0
    out = rgb + (latent.reshape(1, -1) @ latent_weights()).reshape(1, 1, 3)
    return np.clip(out * 255.0, 0, 255)[:, :, ::-1].astype(np.float32)


def expected_latent(embedding: F32) -> F32:
    v = (embedding / np.linalg.norm(embedding)).astype(np.float64) @ emap_matrix()
    return (v / np.linalg.norm(v)).astype(np.float32)


def make_gfpgan(
    path: Path,
    *,
    size: int = 512,
    with_weight: bool = False,
    spot: tuple[float, float, float] | None = None,
) -> Path:
    """[1,3,S,S] in [-1,1] → its negative (colours inverted). With `spot` (x, y, radius in
    crop pixels) only that disc is inverted and the rest passes through, which shows where
    the face landed in the crop. With `weight` (CodeFormer style, a double) the output is
    scaled by it too."""
    if spot is None:
        factor = np.full((1, 1, size, size), -1.0, np.float32)
    else:
        ys, xs = np.mgrid[0:size, 0:size]
        disc = (xs - spot[0]) ** 2 + (ys - spot[1]) ** 2 <= spot[2] ** 2
        factor = np.where(disc, -1.0, 1.0).astype(np.float32)[None, None]
    nodes = [helper.make_node("Mul", ["input", "factor"], ["flipped" if with_weight else "output"])]
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])]
    if with_weight:
        nodes += [
            helper.make_node("Cast", ["weight"], ["weight_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["flipped", "weight_f"], ["output"]),
        ]
        inputs.append(helper.make_tensor_value_info("weight", TensorProto.DOUBLE, [1]))
    graph = helper.make_graph(
        nodes,
        "fake_gfpgan",
        inputs,
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 3, size, size])],
        [numpy_helper.from_array(factor, "factor")],
    )
    return _save(graph, path)


FACES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "testdata" / "faces"


def reference_landmarks(image_bgr: NDArray[np.uint8], max_faces: int = 1) -> list[F32]:
    """468×3 landmarks in pixels from MediaPipe's own legacy FaceMesh, a tests-only reference
    until Fusecam's landmarker stage exists (z scaled by the width, like MediaPipe's)."""
    import cv2
    from mediapipe.python.solutions import face_mesh

    height, width = image_bgr.shape[:2]
    with face_mesh.FaceMesh(static_image_mode=True, max_num_faces=max_faces) as mesh:
        result = mesh.process(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB))
    faces = result.multi_face_landmarks or []
    return [
        np.array([[p.x * width, p.y * height, p.z * width] for p in face.landmark], np.float32)
        for face in faces
    ]
