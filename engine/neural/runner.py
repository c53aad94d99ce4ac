"""One ONNX session for a neural stage: dtype handling (fp16 variants) and IO binding.

fp16 model variants take and return float16 tensors; callers always work in float32 and
this casts at the boundary. On CUDA, IO binding lets onnxruntime place the inputs on the
device and allocate outputs there once per call, instead of the generic `run` path's
extra host staging; on CPU it brings nothing, so it is off there unless forced (tests).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.core.settings import ExecutionProvider
from engine.models.onnx import LoadedModel, load_model, neural_threads

_ORT_TYPES: dict[str, type[np.floating]] = {
    "tensor(float)": np.float32,
    "tensor(float16)": np.float16,
    "tensor(double)": np.float64,
}
_DEVICE_OF = {"CUDAExecutionProvider": "cuda", "TensorrtExecutionProvider": "cuda"}


@dataclass(frozen=True, slots=True)
class TensorInfo:
    name: str
    shape: tuple[int | str | None, ...]
    dtype: type[np.floating] | None  # None: not a float tensor

    @property
    def rank(self) -> int:
        return len(self.shape)

    def dim(self, index: int) -> int | None:
        value = self.shape[index]
        return value if isinstance(value, int) else None


def _infos(args: list[object]) -> tuple[TensorInfo, ...]:
    return tuple(
        TensorInfo(
            str(getattr(a, "name", "")),
            tuple(getattr(a, "shape", ()) or ()),
            _ORT_TYPES.get(str(getattr(a, "type", ""))),
        )
        for a in args
    )


def rgb_blob(crop: NDArray[np.generic], mean: float, std: float) -> NDArray[np.float32]:
    """An aligned BGR crop (uint8 or float 0..255) → the 1×3×S×S RGB blob
    `(rgb - mean) / std` that ArcFace- and inswapper-style models take."""
    rgb = np.asarray(crop, np.float32)[:, :, ::-1]
    return ((rgb - mean) / std).transpose(2, 0, 1)[None]


class OnnxRunner:
    """Runs one model; inputs/outputs are float32 on the caller's side."""

    def __init__(self, model: LoadedModel, *, io_binding: bool | None = None) -> None:
        self.model = model
        session = model.session
        self.inputs = _infos(list(session.get_inputs()))
        self.outputs = _infos(list(session.get_outputs()))
        self.device = _DEVICE_OF.get(model.providers[0], "cpu")
        self.io_binding = self.device != "cpu" if io_binding is None else io_binding

    @classmethod
    def load(
        cls,
        path: Path,
        *,
        name: str | None = None,
        provider: ExecutionProvider = "auto",
        io_binding: bool | None = None,
    ) -> OnnxRunner:
        model = load_model(path, name=name, provider=provider, threads=neural_threads())
        return cls(model, io_binding=io_binding)

    @property
    def providers(self) -> tuple[str, ...]:
        return self.model.providers

    @property
    def half(self) -> bool:
        return any(i.dtype is np.float16 for i in self.inputs)

    def run(self, feeds: Mapping[str, NDArray[np.generic]]) -> list[NDArray[np.float32]]:
        typed = {
            info.name: np.ascontiguousarray(feeds[info.name], dtype=info.dtype or np.float32)
            for info in self.inputs
        }
        if self.io_binding:
            binding = self.model.session.io_binding()
            for name, value in typed.items():
                binding.bind_cpu_input(name, value)
            for info in self.outputs:
                binding.bind_output(info.name, self.device)
            self.model.session.run_with_iobinding(binding)
            results = binding.copy_outputs_to_cpu()
        else:
            results = self.model.session.run(None, typed)
        return [np.asarray(r, dtype=np.float32) for r in results]
