"""Creating onnxruntime sessions on the best available provider, and saying which one runs.

onnxruntime-gpu quietly falls back to CPU when CUDA libraries are missing, so the
provider list actually in use (`session.get_providers()`) is what gets reported.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import onnxruntime as ort

from engine.core.settings import EXECUTION_PROVIDERS, ExecutionProvider
from engine.models.gpu import nvidia_gpu_present, preload_cuda_libraries

log = logging.getLogger(__name__)

_PROVIDER_NAMES: dict[ExecutionProvider, str] = {
    "tensorrt": "TensorrtExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "directml": "DmlExecutionProvider",
    "openvino": "OpenVINOExecutionProvider",
    "cpu": "CPUExecutionProvider",
}
# "auto" prefers accelerators; TensorRT is left out because its engine build takes minutes
# on first use, which a user pressing "start" should not pay without asking for it.
_AUTO_ORDER: tuple[ExecutionProvider, ...] = ("cuda", "coreml", "directml", "openvino", "cpu")


def neural_threads() -> int:
    """Intra-op threads for the neural models (swapper, recognition, restorer: tens to
    hundreds of ms per run on a CPU, where one thread leaves the other cores idle while
    the engine waits): the cores this process may use, at most four (more buys little
    and takes the cores capture and the sinks run on)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(4, usable or 1))


def session_options(threads: int = 1) -> ort.SessionOptions:
    """The one session policy: every onnxruntime session (the app's models through
    `load_model`, the developer tools' and tests' checks of converted graphs) is made
    with these options, so a model runs alike wherever it runs.

    Thread counts are chosen for the smallest machine the app must serve live: two
    cores, shared with OBS (or the meeting app) encoding the stream, plus capture and
    the sinks. `threads` intra-op threads: 1, the default, for the small face and hand
    models (1–5 ms a run: measured 3.2 ms with one thread against 5.2 ms with two on 2
    cores, where the pool's hand-off costs more than the split saves, and a core stays
    free for capture, the sinks and OBS); the neural models pass `neural_threads()` (a
    run of tens to hundreds of ms that the engine thread waits on: it may use the cores
    while it lasts). One inter-op thread: the graphs run sequentially, and a second
    pool would only add idle threads competing with OBS.
    """
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    return options


class ModelLoadError(RuntimeError):
    """A model file is missing, corrupt or cannot be run; the message says which and how."""


@dataclass(frozen=True, slots=True)
class LoadedModel:
    session: ort.InferenceSession
    path: Path
    providers: tuple[str, ...]  # what actually runs, first = preferred
    requested: tuple[str, ...]

    @property
    def fell_back_to_cpu(self) -> bool:
        return self.providers[0] == "CPUExecutionProvider" and (
            self.requested[0] != "CPUExecutionProvider"
        )


def offered_providers() -> tuple[ExecutionProvider, ...]:
    """The choices worth offering: "auto", those this onnxruntime build has, and "cpu"
    (DirectML, OpenVINO and CoreML only exist in their own onnxruntime flavours)."""
    available = set(ort.get_available_providers())
    return tuple(
        key
        for key in EXECUTION_PROVIDERS
        if key in ("auto", "cpu") or _PROVIDER_NAMES[key] in available
    )


def requested_providers(choice: ExecutionProvider = "auto") -> list[str]:
    available = set(ort.get_available_providers())
    keys = _AUTO_ORDER if choice == "auto" else tuple(dict.fromkeys((choice, "cpu")))
    if choice == "auto" and not nvidia_gpu_present():
        # onnxruntime-gpu lists CUDA on every machine; without an NVIDIA GPU "auto"
        # means the CPU, chosen quietly rather than reported as a failed CUDA start.
        keys = tuple(k for k in keys if k != "cuda")
    wanted = [_PROVIDER_NAMES[k] for k in keys if _PROVIDER_NAMES[k] in available]
    if "CPUExecutionProvider" not in wanted:
        wanted.append("CPUExecutionProvider")
    return wanted


def load_model(
    path: Path,
    *,
    name: str | None = None,
    provider: ExecutionProvider = "auto",
    threads: int | None = None,
) -> LoadedModel:
    """An inference session for `path`, or a ModelLoadError naming the model and the fix."""
    label = name or path.stem
    if not path.is_file():
        raise ModelLoadError(f"model {label!r}: file {path} is missing")
    wanted = requested_providers(provider)
    if wanted[0] in ("CUDAExecutionProvider", "TensorrtExecutionProvider"):
        preload_cuda_libraries()
    # onnxruntime prints a multi-line error for every session when CUDA libraries are
    # missing; we report the fallback ourselves, once per model, in one line.
    ort.set_default_logger_severity(4)
    try:
        session = ort.InferenceSession(
            str(path), sess_options=session_options(threads or 1), providers=wanted
        )
    except Exception as exc:  # onnxruntime raises several unrelated types for bad files
        raise ModelLoadError(
            f"model {label!r}: {path} cannot be loaded ({exc.__class__.__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else 'no details'}); "
            "the file may be corrupt — verify or download it again"
        ) from exc
    actual = tuple(session.get_providers())
    model = LoadedModel(session, path, actual, tuple(wanted))
    if model.fell_back_to_cpu:
        _warn_cpu_fallback(wanted[0])
        log.info("model %s runs on CPU instead of %s", label, wanted[0])
    return model


@cache
def _warn_cpu_fallback(requested: str) -> None:
    """Once per process and provider: every model falls back for the same reason."""
    log.warning(
        "%s was requested but onnxruntime runs the models on CPU (GPU libraries missing "
        "or incompatible); `fusecam doctor` says what is missing and how to fix it",
        requested,
    )
