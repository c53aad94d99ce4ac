"""Rewriting a sparse TFLite model as a dense one, so tf2onnx can read it."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def densify_tflite(src: Path, dst: Path) -> int:
    """Rewrite ``src`` with every constant DENSIFY op replaced by its dense output.

    tf2onnx crashes (segfault) reading TFLite sparse tensors. The dense values are taken
    from the interpreter itself (DENSIFY of a constant is evaluated once), so the result
    is bit-exact; the verification step compares the ONNX model with the *original*
    sparse model, which covers this rewrite too. Returns the number of ops removed.
    """
    import tensorflow as tf
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    interp = tf.lite.Interpreter(
        model_path=str(src),
        experimental_op_resolver_type=tf.lite.experimental.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        experimental_preserve_all_tensors=True,
    )
    interp.allocate_tensors()
    for detail in interp.get_input_details():
        interp.set_tensor(detail["index"], np.zeros(detail["shape"], detail["dtype"]))
    interp.invoke()

    model = flatbuffer_utils.read_model(str(src))
    codes = [max(c.builtinCode, c.deprecatedBuiltinCode) for c in model.operatorCodes]
    removed = 0
    for graph_index, graph in enumerate(model.subgraphs):
        kept = []
        for op in graph.operators:
            if codes[op.opcodeIndex] != schema.BuiltinOperator.DENSIFY:
                kept.append(op)
                continue
            if graph_index != 0:
                raise NotImplementedError("DENSIFY outside the main subgraph")
            sparse, dense = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            values = interp.get_tensor(op.outputs[0])
            model.buffers[dense.buffer].data = np.frombuffer(values.tobytes(), np.uint8)
            # Orphan the sparse input; it keeps its slot so tensor indices stay valid.
            model.buffers[sparse.buffer].data = None
            sparse.sparsity = None
            removed += 1
        graph.operators = kept
    flatbuffer_utils.write_model(model, str(dst))
    return removed
