"""What the embedder adds to a search over HTTP: `hash` against the default MiniLM, with
uncached queries and with a warm query-vector cache.

    .venv/bin/python -m bench.search_embedders --home /tmp/eg-bench/neo4j [--requests 150]

Two services run side by side on the benchmark graph (`bench/build_graph.py`, built first if
need be), `evidencegraph serve` with EMBEDDER=hash and with EMBEDDER=minilm (its default
settings: EMBEDDER_THREADS, EMBEDDER_PRECISION from the environment). For each distinct query
(`bench/vocabulary.py`, so no first request is a cache hit) the same hybrid
`searchEntities(limit: 10)` as `bench/search_latency.py` runs three ways, in rotating order so
that load from other processes falls on all alike:

    hash          the `hash` service (its cost per query is about 0.1 ms)
    minilm cold   the MiniLM service, the query's first request: embedded on the request
    minilm warm   the MiniLM service, the same query again: its vector comes from the cache

The MiniLM query vectors do not match the graph's hash vectors in meaning, so the hits
differ; the work (one embedding, the same statement shape) is what is measured. Ratios of
one run, not milliseconds across runs: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

import httpx
import neo4j

from bench import target
from bench.build_graph import SCALES, build
from bench.search_latency import percentile
from bench.search_paths import HttpService, service_process
from bench.vocabulary import search_queries
from graph.driver import Graph

WAYS = ("hash", "minilm cold", "minilm warm")


def measure(
    queries: list[str], warmup: int, hash_service: HttpService, minilm: HttpService
) -> dict[str, list[float]]:
    ms: dict[str, list[float]] = {way: [] for way in WAYS}
    orders = (WAYS, ("minilm cold", "minilm warm", "hash"), ("minilm cold", "hash", "minilm warm"))
    for number, query in enumerate(queries):
        for way in orders[number % len(orders)]:  # warm always after cold: it needs the vector
            service = hash_service if way == "hash" else minilm
            started = time.perf_counter()
            service.search(query)
            if number >= warmup:
                ms[way].append((time.perf_counter() - started) * 1000)
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.add_arguments(parser)
    parser.add_argument("--scale", choices=sorted(SCALES), default="S")
    parser.add_argument("--seed", type=int, default=7, help="the graph's seed")
    parser.add_argument("--query-seed", type=int, default=13)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--requests", type=int, default=150)
    arguments = parser.parse_args()
    try:
        uri = target.bolt_uri(arguments)

        async def prepare() -> None:
            async with neo4j.AsyncGraphDatabase.driver(
                uri, auth=None, notifications_min_severity="OFF"
            ) as driver:
                await build(Graph(driver), SCALES[arguments.scale], arguments.seed, wipe=False)

        asyncio.run(prepare())
        queries = search_queries(arguments.warmup + arguments.requests, arguments.query_seed)
        logs = Path(tempfile.gettempdir())
        load_before = os.getloadavg()[0]
        with (
            service_process(uri, logs / f"eg-bench-hash-{os.getpid()}.log") as hash_url,
            service_process(uri, logs / f"eg-bench-minilm-{os.getpid()}.log", "minilm") as url,
            httpx.Client(base_url=hash_url, timeout=30) as hash_client,
            httpx.Client(base_url=url, timeout=30) as minilm_client,
        ):
            ms = measure(
                queries, arguments.warmup, HttpService(hash_client), HttpService(minilm_client)
            )
        load_after = os.getloadavg()[0]
    finally:
        target.finish(arguments)
    hash_p50 = percentile(ms["hash"], 0.5)
    print(
        f"{arguments.requests} requests a way, scale {arguments.scale}, "
        f"load average {load_before:.2f} before, {load_after:.2f} after"
    )
    print("| way | HTTP p50 ms | p95 ms | p50 / hash p50 |\n|---|---|---|---|")
    for way, values in ms.items():
        p50 = percentile(values, 0.5)
        print(f"| {way} | {p50:.2f} | {percentile(values, 0.95):.2f} | {p50 / hash_p50:.2f}x |")


if __name__ == "__main__":
    main()
