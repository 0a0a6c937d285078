"""How MiniLM's runs share the cores: one run split over two intra-op threads (as `main` ran
until issue 20's second round) against one thread a run with batches side by side (as now),
at several batch sizes; interleaved in one process, CPU per text and throughput.

    .venv/bin/python -m bench.minilm_threads [--rounds 4] [--passages 16] [--queries 50] \
        [--tokens 512,1024,2048]

CPU time counts every thread of the process, so it says what a text costs however many other
processes share the cores; throughput (texts/s, wall) means something only on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import onnxruntime

from bench.embedding_speed import passages
from embedding import minilm
from embedding.minilm import MiniLMEmbedder


@contextmanager
def batch_tokens(tokens: int) -> Iterator[None]:
    saved = minilm.BATCH_TOKENS
    minilm.BATCH_TOKENS = tokens
    try:
        yield
    finally:
        minilm.BATCH_TOKENS = saved


def split_runs(threads: int) -> MiniLMEmbedder:
    """Batches one after the other, each run split over `threads` intra-op threads."""
    embedder = MiniLMEmbedder(threads=1)
    options = minilm.session_options()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    weights = minilm.locate_model_dir() / "model.safetensors"
    path = minilm._model_file(weights, "fp32", Path(tempfile.gettempdir()))
    embedder._session = onnxruntime.InferenceSession(
        str(path), options, providers=["CPUExecutionProvider"]
    )
    return embedder


def measure(embedder: MiniLMEmbedder, calls: list[list[str]]) -> tuple[float, float, float]:
    """Over `calls`, one `embed` each: CPU ms a text, texts a second and the median ms a call
    (both wall)."""
    count, took = sum(len(call) for call in calls), []
    cpu, wall = time.process_time(), time.perf_counter()
    for call in calls:
        started = time.perf_counter()
        embedder.embed(call)
        took.append((time.perf_counter() - started) * 1000)
    per_second = count / (time.perf_counter() - wall)
    return (time.process_time() - cpu) * 1000 / count, per_second, statistics.median(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--passages", type=int, default=16, help="200-word passages a round")
    parser.add_argument("--queries", type=int, default=50, help="short queries a round")
    parser.add_argument("--tokens", default="512,1024,2048", help="batch sizes (padded tokens)")
    arguments = parser.parse_args()

    cores = minilm.default_threads()
    side_by_side, split = MiniLMEmbedder(threads=cores), split_runs(cores)
    ways: dict[str, tuple[MiniLMEmbedder, int]] = {}
    for tokens in (int(t) for t in arguments.tokens.split(",")):
        ways[f"{cores} threads a run, {tokens} tokens"] = (split, tokens)
        ways[f"1 thread a run x {cores}, {tokens} tokens"] = (side_by_side, tokens)
    texts = passages(arguments.passages)
    for embedder, _ in ways.values():
        embedder.embed(texts[:4])

    figures: dict[str, list[tuple[float, float, float, float]]] = {way: [] for way in ways}
    for round_ in range(arguments.rounds):
        queries = [[f"who signed for cargo {round_ * 1000 + i}?"] for i in range(arguments.queries)]
        order = list(ways.items())
        for way, (embedder, tokens) in order if round_ % 2 == 0 else reversed(order):
            with batch_tokens(tokens):
                passage_cpu, per_second, _ = measure(embedder, [texts])
            query_cpu, _, query_p50 = measure(embedder, queries)
            figures[way].append((passage_cpu, per_second, query_cpu, query_p50))
    print(
        f"load average {os.getloadavg()[0]:.1f}; medians of {arguments.rounds} rounds of "
        f"{arguments.passages} passages and {arguments.queries} queries"
    )
    print(
        f"{'way':34} {'CPU ms a passage':>16} {'passages/s':>10} {'CPU ms a query':>14} "
        f"{'query p50 ms':>12}"
    )
    for way, rows in figures.items():
        passage_cpu, per_second, query_cpu, query_p50 = (
            statistics.median(column) for column in zip(*rows, strict=True)
        )
        print(
            f"{way:34} {passage_cpu:16.1f} {per_second:10.1f} {query_cpu:14.2f} {query_p50:12.2f}"
        )


if __name__ == "__main__":
    main()
