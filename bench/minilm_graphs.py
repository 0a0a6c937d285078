"""MiniLM's graph as the product builds it, against the same model written with ONNX Runtime's
fused operators (domain `com.microsoft`): interleaved, CPU per text.

    .venv/bin/python -m bench.minilm_graphs [--rounds 5] [--passages 8] [--queries 100]

The fused graph is `EmbedLayerNormalization` → 6 × (`Attention` with packed Q/K/V weights,
MatMul, `SkipLayerNormalization` with the bias, MatMul, `BiasGelu`, MatMul,
`SkipLayerNormalization`) → mean pooling: each operator exact (erf GELU, no approximation),
so its vectors are the product's to float32 rounding (printed). Both sessions run one thread a
run, as the product does. It is kept here, not in `embedding/`, because it is not faster: on
ONNX Runtime 1.32's CPU kernels the fused `Attention` and `SkipLayerNormalization` cost more
than the MatMul/Softmax/Add/LayerNormalization nodes they replace (bench/notebook.md). Run
it again when the runtime changes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper
from safetensors.numpy import load_file

from bench.embedding_speed import passages
from embedding import minilm, minilm_graph
from embedding.minilm_graph import HEADS, HIDDEN, LAYER_NORM_EPS, LAYERS, MAX_TOKENS, Weights

MICROSOFT = "com.microsoft"


def build_fused(weights: Weights) -> onnx.ModelProto:
    """The encoder and its mean pooling with ONNX Runtime's fused BERT operators."""
    g = minilm_graph._Graph()

    def fused(kind: str, *inputs: str, outputs: int = 1, **attributes: Any) -> list[str]:
        g._count += 1
        names = [f"{kind.lower()}_{g._count}_{i}" for i in range(outputs)]
        g.nodes.append(
            helper.make_node(
                kind, list(inputs), names, name=names[0], domain=MICROSOFT, **attributes
            )
        )
        return names

    def matrix(name: str) -> np.ndarray[Any, Any]:
        return np.ascontiguousarray(weights[f"{name}.weight"].T)

    def vector(name: str) -> str:
        return g.constant(name, weights[name])

    ids, mask = "input_ids", "attention_mask"
    x, lengths = fused(
        "EmbedLayerNormalization",
        g.op("Cast", ids, to=TensorProto.INT32),
        "",
        g.constant("word", weights["embeddings.word_embeddings.weight"]),
        g.constant(
            "position",
            weights["embeddings.position_embeddings.weight"][:MAX_TOKENS]
            + weights["embeddings.token_type_embeddings.weight"][0],
        ),
        "",
        vector("embeddings.LayerNorm.weight"),
        vector("embeddings.LayerNorm.bias"),
        g.op("Cast", mask, to=TensorProto.INT32),
        outputs=2,
        epsilon=LAYER_NORM_EPS,
    )
    for index in range(LAYERS):
        name = f"encoder.layer.{index}"
        own = f"{name}.attention.self"
        parts = ("query", "key", "value")
        [context] = fused(
            "Attention",
            x,
            g.constant(f"{own}.qkv", np.concatenate([matrix(f"{own}.{p}") for p in parts], 1)),
            g.constant(
                f"{own}.qkv.bias", np.concatenate([weights[f"{own}.{p}.bias"] for p in parts])
            ),
            lengths,  # right padding: each text's length
            num_heads=HEADS,
        )
        out = f"{name}.attention.output"
        [x] = fused(
            "SkipLayerNormalization",
            g.op("MatMul", context, g.constant(f"{out}.dense", matrix(f"{out}.dense"))),
            x,
            vector(f"{out}.LayerNorm.weight"),
            vector(f"{out}.LayerNorm.bias"),
            vector(f"{out}.dense.bias"),
            epsilon=LAYER_NORM_EPS,
        )
        inner = f"{name}.intermediate.dense"
        [hidden] = fused(
            "BiasGelu", g.op("MatMul", x, g.constant(inner, matrix(inner))), vector(f"{inner}.bias")
        )
        dense = f"{name}.output.dense"
        [x] = fused(
            "SkipLayerNormalization",
            g.op("MatMul", hidden, g.constant(dense, matrix(dense))),
            x,
            vector(f"{name}.output.LayerNorm.weight"),
            vector(f"{name}.output.LayerNorm.bias"),
            vector(f"{dense}.bias"),
            epsilon=LAYER_NORM_EPS,
        )
    real = g.op(
        "Unsqueeze",
        g.op("Cast", mask, to=TensorProto.FLOAT),
        g.constant("token_axis_last", [2], np.int64),
    )
    token_axis = g.constant("token_axis", [1], np.int64)
    summed = g.op("ReduceSum", g.op("Mul", x, real), token_axis, keepdims=0)
    counts = g.op("ReduceSum", real, token_axis, keepdims=0)
    g.op("Div", summed, g.op("Max", counts, g.constant("count_floor", 1e-9)))
    g.nodes[-1].output[0] = "pooled"
    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2-fused",
        [
            helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", HIDDEN])],
        g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", minilm_graph.OPSET),
            helper.make_opsetid(MICROSOFT, 1),
        ],
    )
    model.ir_version = 8
    return model


def embedder_on(path: Path) -> minilm.MiniLMEmbedder:
    """The product's embedder (tokens, batches, runners), its session on the graph at `path`."""
    embedder = minilm.MiniLMEmbedder(threads=1)
    embedder._session = onnxruntime.InferenceSession(
        str(path), minilm.session_options(), providers=["CPUExecutionProvider"]
    )
    return embedder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--passages", type=int, default=8, help="200-word passages a round")
    parser.add_argument("--queries", type=int, default=100, help="short queries a round")
    arguments = parser.parse_args()

    weights = load_file(str(minilm.locate_model_dir() / "model.safetensors"))
    with tempfile.TemporaryDirectory(prefix="minilm-graphs-") as scratch:
        product, fused = Path(scratch) / "product.onnx", Path(scratch) / "fused.onnx"
        onnx.save(minilm_graph.build_encoder(weights), str(product))
        onnx.save(build_fused(weights), str(fused))
        ways = {"product graph": embedder_on(product), "fused operators": embedder_on(fused)}
        texts = passages(arguments.rounds * arguments.passages)
        a, b = (np.array(e.embed([*texts[:8], "who signed?"])) for e in ways.values())
        print(f"largest difference between the two graphs' vectors: {np.abs(a - b).max():.1e}")

        cpu: dict[str, dict[str, list[float]]] = {way: {"passage": [], "query": []} for way in ways}
        for round_ in range(arguments.rounds):
            order = list(ways.items())
            for way, embedder in order if round_ % 2 == 0 else reversed(order):
                chunk = texts[round_ * arguments.passages : (round_ + 1) * arguments.passages]
                started = time.process_time()
                embedder.embed(chunk)
                cpu[way]["passage"].append((time.process_time() - started) * 1000 / len(chunk))
                started = time.process_time()
                for i in range(arguments.queries):
                    embedder.embed([f"who signed for cargo number {round_ * 1000 + i}?"])
                cpu[way]["query"].append((time.process_time() - started) * 1000 / arguments.queries)
    print(
        f"load average {os.getloadavg()[0]:.1f}; CPU ms a text, median of {arguments.rounds} rounds"
    )
    for way, figures in cpu.items():
        print(
            f"{way:16} passage {statistics.median(figures['passage']):6.1f}  "
            f"query {statistics.median(figures['query']):5.2f}"
        )


if __name__ == "__main__":
    main()
