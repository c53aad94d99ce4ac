"""Dev-time: rewrite the PRelu nodes of bundled models into ops onnxruntime runs fast.

Why: onnxruntime's CPU provider runs PRelu through its generic broadcast path and cannot
keep it in its blocked (NCHWc) convolution layout, so every PRelu also costs a layout
reorder in and out. On MediaPipe's face mesh, PRelu plus those reorders were ~57 % of
the model's time (ORT profiler, 1 thread, AMD EPYC AVX2). The same function written as

    PRelu(x, s) = s·x + (1 − s)·Relu(x)

(x > 0: s·x + (1 − s)·x = x; x ≤ 0: s·x) is plain Relu, Mul and Add, which the
optimiser keeps blocked and partly folds into the convolutions: the face mesh runs in
about 0.55× the time (measured with tools/rewrite_prelu.py --measure). The slopes stay
the model's own (`1 − s` is a Sub the optimiser folds at load).

The result is checked against the original on random inputs and written in place; the
manifest entry gets the new SHA-256 and size and a `derived` note.
tools/convert_mediapipe_models.py applies the same rewrite to `TARGETS` as it converts;
by hand, on the bundled files:

    .venv/bin/python tools/rewrite_prelu.py face_landmark palm_detection iris_landmark [--measure]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

from engine.models.onnx import session_options

MODELS_DIR = Path(__file__).resolve().parent.parent / "engine" / "resources" / "models"
MANIFEST = MODELS_DIR / "manifest.json"
# Largest output change allowed, relative to the output's own range (float rounding only).
MAX_RELATIVE_CHANGE = 1e-4
# The bundled models that have PRelu as converted; tools/convert_mediapipe_models.py
# rewrites these too, so a reconversion gives the files that ship.
TARGETS = ("face_landmark", "palm_detection", "iris_landmark")
DERIVED_NOTE = (
    "PRelu(x, s) rewritten as s*x + (1 - s)*Relu(x) by tools/rewrite_prelu.py: the same "
    "function (outputs checked equal to float rounding), in ops onnxruntime's CPU provider "
    "runs in its blocked conv layout"
)


def rewrite_prelu(model: onnx.ModelProto) -> int:
    """Replace every PRelu in the main graph in place; returns how many there were."""
    graph = model.graph
    one = "rewrite_prelu_one"
    nodes: list[onnx.NodeProto] = []
    count = 0
    for node in graph.node:
        if node.op_type != "PRelu":
            nodes.append(node)
            continue
        count += 1
        x, slope = node.input
        name = node.name or f"prelu_{count}"
        rest = f"{name}_one_minus_slope"
        nodes += [
            helper.make_node("Sub", [one, slope], [rest], name=f"{name}_sub"),
            helper.make_node("Mul", [x, slope], [f"{name}_sx"], name=f"{name}_mul_x"),
            helper.make_node("Relu", [x], [f"{name}_relu"], name=f"{name}_relu"),
            helper.make_node("Mul", [f"{name}_relu", rest], [f"{name}_rest"], name=f"{name}_mul"),
            helper.make_node("Add", [f"{name}_sx", f"{name}_rest"], list(node.output), name=name),
        ]
    if count:
        graph.initializer.append(numpy_helper.from_array(np.array(1.0, np.float32), one))
        del graph.node[:]
        graph.node.extend(nodes)
        onnx.checker.check_model(model)
    return count


def rewrite_checked(before: bytes) -> tuple[bytes, int, float]:
    """The serialized model with its PRelu rewritten, how many there were and the largest
    output change (`max_relative_change`); `before` itself when it has none."""
    model = onnx.load_from_string(before)
    count = rewrite_prelu(model)
    if not count:
        return before, 0, 0.0
    after = model.SerializeToString()
    return after, count, max_relative_change(before, after)


def _session(data: bytes) -> ort.InferenceSession:
    return ort.InferenceSession(data, session_options(), providers=["CPUExecutionProvider"])


def _inputs(session: ort.InferenceSession, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        i.name: rng.random([d if isinstance(d, int) else 1 for d in i.shape], np.float32)
        for i in session.get_inputs()
    }


def max_relative_change(before: bytes, after: bytes, trials: int = 8) -> float:
    """Largest |after − before| over random inputs, relative to each output's range."""
    old, new = _session(before), _session(after)
    worst = 0.0
    for seed in range(trials):
        feed = _inputs(old, seed)
        for a, b in zip(old.run(None, feed), new.run(None, feed), strict=True):
            scale = max(float(np.ptp(a)), float(np.abs(a).max()), 1e-6)
            worst = max(worst, float(np.abs(a - b).max()) / scale)
    return worst


def cpu_ms(data: bytes, runs: int = 60) -> float:
    """Median CPU milliseconds per run (CPU time: steadier than wall time on a busy box)."""
    session = _session(data)
    feed = _inputs(session, 0)
    for _ in range(10):
        session.run(None, feed)
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        session.run(None, feed)
        times.append((time.process_time() - t0) * 1e3)
    return float(np.median(times))


def update_manifest(name: str, data: bytes) -> None:
    """New hash, size and the `derived` note, edited in the text so the rest of the
    hand-formatted file stays as it is."""
    text = MANIFEST.read_text(encoding="utf-8")
    entry = next(e for e in json.loads(text)["models"] if e["name"] == name)
    start = text.index(f'"name": "{name}"')
    indent = " " * (start - text.rindex("\n", 0, start) - 1)
    head, tail = text[:start], text[start:]
    tail = tail.replace(
        f'"sha256": "{entry["sha256"]}"', f'"sha256": "{hashlib.sha256(data).hexdigest()}"', 1
    )
    tail = tail.replace(f'"size_bytes": {entry["size_bytes"]}', f'"size_bytes": {len(data)}', 1)
    if "derived" not in entry:
        source = tail.index('"source": ')
        line_end = tail.index("\n", source)
        tail = f'{tail[:line_end]}\n{indent}"derived": {json.dumps(DERIVED_NOTE)},{tail[line_end:]}'
    text = head + tail
    updated = next(e for e in json.loads(text)["models"] if e["name"] == name)
    assert updated["size_bytes"] == len(data) and updated["derived"] == DERIVED_NOTE
    MANIFEST.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="+", help="bundled model names (engine/resources/models/<name>.onnx)"
    )
    parser.add_argument("--measure", action="store_true", help="print CPU ms before/after")
    args = parser.parse_args(argv)
    for name in args.names:
        path = MODELS_DIR / f"{name}.onnx"
        before = path.read_bytes()
        after, count, change = rewrite_checked(before)
        if not count:
            print(f"{name}: no PRelu left, nothing to do")
            continue
        if change > MAX_RELATIVE_CHANGE:
            print(f"{name}: outputs changed by {change:.2e} of their range; not written")
            return 1
        if args.measure:
            # Interleaved, three times each: the dev machine is shared and noisy.
            pairs = [(cpu_ms(before), cpu_ms(after)) for _ in range(3)]
            old_ms, new_ms = (float(np.median(v)) for v in zip(*pairs, strict=True))
            print(f"{name}: {old_ms:.2f} → {new_ms:.2f} ms CPU ({new_ms / old_ms:.2f}×)")
        path.write_bytes(after)
        update_manifest(name, after)
        print(f"{name}: {count} PRelu rewritten (max output change {change:.1e} of range)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
