"""tools/convert_mediapipe_models.py (code in tools/mediapipe_convert/): the parts that run
without TensorFlow. The conversion itself needs a throw-away environment (its docstring)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from engine.core.paths import MODELS_DIR
from engine.models.onnx import session_options
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "tools" / "convert_mediapipe_models.py"


@pytest.fixture(scope="module")
def tool() -> Iterator[ModuleType]:
    # The entry script finds its package beside it, as `python tools/…` puts tools/ first.
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(REPO_ROOT / "tools"))
        importlib.import_module("mediapipe_convert.anchors")
        importlib.import_module("mediapipe_convert.onnx_passes")
        yield importlib.import_module("mediapipe_convert")


def test_the_command_line_answers_help() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=True
    )
    assert "--wheel" in result.stdout and "What it does, per model" in result.stdout


def test_anchor_options_give_one_anchor_per_detector_box(tool: ModuleType) -> None:
    entries = json.loads((MODELS_DIR / "manifest.json").read_text(encoding="utf-8"))["models"]
    detectors = [e for e in entries if "anchors" in e]
    assert len(detectors) == 3  # both face detectors and the palm detector
    for entry in detectors:
        anchors = tool.anchors.generate_anchors(entry["anchors"])
        assert len(anchors) == entry["anchors"]["num_boxes"] == entry["outputs"][0]["shape"][1]


def test_onnx_passes_keep_the_function(tool: ModuleType) -> None:
    exact = np.array([0.5, -2.0, 1.25, 3.0] * 4, np.float32).reshape(1, 16)  # float16-exact
    inexact = np.full((1, 16), 0.1, np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "exact"], ["xy"], name="tf2onnx_counter_7"),
            helper.make_node("Add", ["xy", "inexact"], ["y"], name="tf2onnx_counter_3"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
        [numpy_helper.from_array(exact, "exact"), numpy_helper.from_array(inexact, "inexact")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8

    tool.onnx_passes.canonicalize_names(model)
    assert [n.name for n in model.graph.node] == ["Mul_0", "Add_1"]
    assert tool.onnx_passes.compact_float16_weights(model) == 1  # only the exact one
    halves = [i for i in model.graph.initializer if i.data_type == TensorProto.FLOAT16]
    assert len(halves) == 1 and model.graph.node[0].op_type == "Cast"

    x = np.random.default_rng(0).normal(size=(1, 16)).astype(np.float32)
    session = ort.InferenceSession(
        model.SerializeToString(), session_options(), providers=["CPUExecutionProvider"]
    )
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], x * exact + inexact)
    onnx.checker.check_model(model)


def test_dynamic_batch_runs_several_inputs_at_once(tool: ModuleType) -> None:
    # As tf2onnx writes a TFLite model: batch 1 in the graph's shapes and in the Reshape.
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="flatten")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 48])],
        [numpy_helper.from_array(np.array([1, -1], np.int64), "shape")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8

    assert tool.onnx_passes.dynamic_batch(model) == 1
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    x = np.random.default_rng(0).normal(size=(2, 4, 4, 3)).astype(np.float32)
    session = ort.InferenceSession(
        model.SerializeToString(), session_options(), providers=["CPUExecutionProvider"]
    )
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], x.reshape(2, 48))
    with pytest.raises(ValueError, match="batch dimension"):
        tool.onnx_passes.dynamic_batch(model)  # already dynamic: nothing to free
