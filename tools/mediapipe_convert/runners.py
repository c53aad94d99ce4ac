"""Running a model: the TFLite reference, the converted ONNX model, and its latency."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np


class TfliteRunner:
    """``tf.lite.Interpreter`` (default delegates, as MediaPipe's XNNPACK CPU path)."""

    def __init__(self, path: Path) -> None:
        import tensorflow as tf

        self.interp = tf.lite.Interpreter(model_path=str(path))
        self.interp.allocate_tensors()
        self.input = self.interp.get_input_details()[0]
        self.outputs = self.interp.get_output_details()

    def __call__(self, x: np.ndarray) -> dict[str, np.ndarray]:
        self.interp.set_tensor(self.input["index"], x)
        self.interp.invoke()
        return {o["name"]: self.interp.get_tensor(o["index"]).copy() for o in self.outputs}


class OnnxRunner:
    """onnxruntime CPU session for a converted model."""

    def __init__(self, model_bytes: bytes, threads: int = 1) -> None:
        import onnxruntime as ort

        from engine.models.onnx import session_options

        self.session = ort.InferenceSession(
            model_bytes, session_options(threads), providers=["CPUExecutionProvider"]
        )
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [o.name for o in self.session.get_outputs()]

    def __call__(self, x: np.ndarray) -> dict[str, np.ndarray]:
        values = self.session.run(None, {self.input_name: x})
        return dict(zip(self.output_names, values, strict=True))


def benchmark(model_bytes: bytes, x: np.ndarray, threads: int, runs: int = 50) -> float:
    """Median latency in milliseconds of ``runs`` single inferences after a warm-up."""
    runner = OnnxRunner(model_bytes, threads)
    for _ in range(5):
        runner(x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        runner(x)
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times)
