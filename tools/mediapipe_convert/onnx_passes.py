"""Passes over the converted ONNX graph: reproducible names, compact float16 weights and a
dynamic batch dimension."""

from __future__ import annotations

from typing import Any

import numpy as np


def canonicalize_names(model: Any) -> None:
    """Rename nodes, weights and intermediate tensors by position in the graph.

    tf2onnx names things from a process-wide counter and set iteration order, so two
    runs give byte-different files. Positional names make the output reproducible (same
    sha256 for the same inputs); graph input/output names are kept.
    """
    graph = model.graph
    keep = {v.name for v in [*graph.input, *graph.output]}
    initializers = {init.name for init in graph.initializer}
    mapping: dict[str, str] = {}

    def rename(name: str, prefix: str) -> str:
        if not name or name in keep:
            return name
        if name not in mapping:
            mapping[name] = f"{prefix}{len(mapping)}"
        return mapping[name]

    if any(attr.g.node or attr.graphs for node in graph.node for attr in node.attribute):
        raise NotImplementedError("control-flow subgraphs are not renamed")
    for index, node in enumerate(graph.node):
        node.name = f"{node.op_type}_{index}"
        for i, name in enumerate(node.input):
            node.input[i] = rename(name, "w" if name in initializers else "t")
        for i, name in enumerate(node.output):
            node.output[i] = rename(name, "t")
    for init in graph.initializer:
        init.name = rename(init.name, "w")
    for info in graph.value_info:
        info.name = rename(info.name, "t")
    ordered = sorted(graph.initializer, key=lambda t: int(t.name[1:]))
    del graph.initializer[:]
    graph.initializer.extend(ordered)


def compact_float16_weights(model: Any, min_elements: int = 16) -> int:
    """Store float32 initializers that round-trip through float16 exactly as float16.

    Adds a ``Cast`` to float32 for each, so the graph computes with the very same values.
    Returns the number of initializers converted.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    casts = []
    converted = 0
    for index, init in enumerate(list(graph.initializer)):
        if init.data_type != TensorProto.FLOAT:
            continue
        values = numpy_helper.to_array(init)
        if values.size < min_elements:
            continue
        half = values.astype(np.float16)
        if not np.array_equal(half.astype(np.float32), values):
            continue
        name = init.name
        graph.initializer[index].CopyFrom(numpy_helper.from_array(half, f"{name}__fp16"))
        casts.append(
            helper.make_node(
                "Cast", [f"{name}__fp16"], [name], to=TensorProto.FLOAT, name=f"{name}__cast"
            )
        )
        converted += 1
    # Prepending keeps the node list topologically sorted.
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    return converted


def dynamic_batch(model: Any) -> int:
    """Make the batch dimension of the graph's inputs and outputs ``"batch"``.

    TFLite models have batch 1 fixed, and tf2onnx writes it into the reshapes too; a
    Reshape's leading 1 becomes 0 (copy the input's dimension), so N inputs run as one
    call (the iris model takes both eyes at once). Returns the number of reshapes changed.
    """
    import onnx
    from onnx import numpy_helper

    graph = model.graph
    for value in [*graph.input, *graph.output]:
        dim = value.type.tensor_type.shape.dim[0]
        if dim.dim_value != 1:
            raise ValueError(f"{value.name}: batch dimension is {dim}, expected 1")
        dim.ClearField("dim_value")
        dim.dim_param = "batch"
    shapes = {node.input[1] for node in graph.node if node.op_type == "Reshape"}
    changed = 0
    for index, init in enumerate(graph.initializer):
        if init.name not in shapes:
            continue
        shape = numpy_helper.to_array(init).copy()
        if shape[0] != 1:
            raise ValueError(f"Reshape to {shape.tolist()}: no leading batch of 1 to free")
        shape[0] = 0
        graph.initializer[index].CopyFrom(numpy_helper.from_array(shape, init.name))
        changed += 1
    onnx.checker.check_model(model)
    return changed
