"""tools/rewrite_prelu.py: PRelu written as s·x + (1 − s)·Relu(x) is the same function,
and the bundled models that had PRelu ship in that faster form."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from engine.core.paths import MODELS_DIR
from engine.models.onnx import session_options
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    path = REPO_ROOT / "tools" / "rewrite_prelu.py"
    spec = importlib.util.spec_from_file_location("rewrite_prelu", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(
        model.SerializeToString(), session_options(), providers=["CPUExecutionProvider"]
    )
    return np.asarray(session.run(None, {"x": x})[0])


def test_the_rewrite_is_the_same_function(tool: ModuleType) -> None:
    # Per-channel slopes on both sides of 0 and above 1, as MediaPipe's models have.
    slopes = np.array([-0.7, 0.0, 0.25, 1.3], np.float32).reshape(1, 4, 1, 1)
    graph = helper.make_graph(
        [helper.make_node("PRelu", ["x", "slope"], ["y"], name="act")],
        "prelu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 5])],
        [numpy_helper.from_array(slopes, "slope")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    x = np.random.default_rng(1).normal(size=(1, 4, 5, 5)).astype(np.float32)
    expected = np.where(x > 0, x, slopes * x)
    np.testing.assert_allclose(_run(model, x), expected, rtol=1e-6)

    assert tool.rewrite_prelu(model) == 1
    assert "PRelu" not in {n.op_type for n in model.graph.node}
    np.testing.assert_allclose(_run(model, x), expected, rtol=1e-6, atol=1e-7)
    assert tool.rewrite_prelu(model) == 0  # nothing left: running it again changes nothing


@pytest.mark.parametrize("name", ["face_landmark", "palm_detection", "iris_landmark"])
def test_bundled_models_ship_without_prelu(name: str) -> None:
    """tf2onnx writes PRelu; tools/convert_mediapipe_models.py rewrites it as it converts,
    else these models run ~1.4–1.9× slower on the CPU."""
    model = onnx.load(str(MODELS_DIR / f"{name}.onnx"))
    assert "PRelu" not in {n.op_type for n in model.graph.node}
