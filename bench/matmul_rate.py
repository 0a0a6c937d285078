"""How fast ONNX Runtime's MatMul (MLAS) multiplies float32 at MiniLM's shapes, one thread:
GFLOP/s against the core's peak (bench/fma_peak.c).

    .venv/bin/python -m bench.matmul_rate
"""

from __future__ import annotations

import os
import time

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

# rows (a batch of 8 passages of 256 word pieces, or one 12-piece query) × inner × outer
SHAPES = [
    (2048, 384, 384),  # attention output projection
    (2048, 384, 1152),  # Q, K and V projections together
    (2048, 384, 1536),  # feed-forward in
    (2048, 1536, 384),  # feed-forward out
    (12, 384, 1536),  # a short query's feed-forward in
]


def gflops(rows: int, inner: int, outer: int, repeats: int = 30) -> tuple[float, float]:
    """Best-run GFLOP/s (wall) and GFLOP/s by CPU time over `repeats` runs."""
    weights = np.random.default_rng(0).random((inner, outer), dtype=np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, inner])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, outer])],
        [numpy_helper.from_array(weights, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    x = np.random.default_rng(1).random((rows, inner), dtype=np.float32)
    session.run(None, {"x": x})
    best, cpu = float("inf"), time.process_time()
    for _ in range(repeats):
        started = time.perf_counter()
        session.run(None, {"x": x})
        best = min(best, time.perf_counter() - started)
    flops = 2 * rows * inner * outer
    return flops / best / 1e9, flops * repeats / (time.process_time() - cpu) / 1e9


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f}; one thread")
    for rows, inner, outer in SHAPES:
        best, by_cpu = gflops(rows, inner, outer)
        shape = f"{rows}×{inner} by {inner}×{outer}"
        print(f"{shape:24} {best:6.1f} GFLOP/s best, {by_cpu:6.1f} by CPU")


if __name__ == "__main__":
    main()
