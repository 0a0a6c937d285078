"""How fast the embedders are here: ms per short query, and passages (~200 words) per second.

    .venv/bin/python bench/embedding_speed.py [--kind minilm|hash] [--queries 100] \
        [--passages 64] [--precision fp32|int8] [--threads N]

Short on purpose (the machine is shared): a few seconds for MiniLM. Query latency is the
median over distinct texts (no cache), one text per call, as `searchEntities` embeds them.
Passages are embedded in one call, as the loader hands them over (batched by length).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from embedding.factory import create_embedder

SOURCE = Path(__file__).parent.parent / "data" / "graphrag-operation-dulce" / "source-text.md"


def passages(count: int, words: int = 200) -> list[str]:
    """Consecutive 200-word windows of real prose (about 250 word pieces each)."""
    text = SOURCE.read_text(encoding="utf-8").split()
    return [" ".join(text[i : i + words]) for i in range(0, count * words, words)][:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kind", default="minilm", choices=["minilm", "hash"])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument("--precision", default="fp32", choices=["fp32", "int8"])
    parser.add_argument("--threads", type=int, default=None, help="default: min(2, cores)")
    arguments = parser.parse_args()

    started = time.perf_counter()
    embedder = create_embedder(
        arguments.kind,
        dimension=None,
        url=None,
        model=None,
        api_key=None,
        threads=arguments.threads,
        precision=arguments.precision,
    )
    print(
        f"{embedder.identity.describe()} {arguments.precision}: "
        f"ready in {time.perf_counter() - started:.2f} s"
    )

    embedder.embed(["warm up"])
    latencies = []
    cpu_started = time.process_time()
    for i in range(arguments.queries):
        text = f"who signed for cargo number {i} on the quay?"
        started = time.perf_counter()
        embedder.embed([text])
        latencies.append((time.perf_counter() - started) * 1000)
    # CPU time (all threads) says what the work costs when other processes share the cores.
    cpu = (time.process_time() - cpu_started) * 1000 / arguments.queries
    print(
        f"query: median {statistics.median(latencies):.2f} ms, "
        f"p90 {statistics.quantiles(latencies, n=10)[-1]:.2f} ms, "
        f"CPU {cpu:.2f} ms ({arguments.queries} queries)"
    )

    texts = passages(arguments.passages)
    started, cpu_started = time.perf_counter(), time.process_time()
    embedder.embed(texts)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(
        f"passages: {len(texts) / elapsed:.1f} texts/s, CPU {cpu * 1000 / len(texts):.1f} ms "
        f"a passage ({len(texts)} passages of 200 words in {elapsed:.2f} s)"
    )


if __name__ == "__main__":
    main()
