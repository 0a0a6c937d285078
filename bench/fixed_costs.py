"""The fixed costs of one request, A/B between source trees in one run (bench/notebook.md).

    git worktree add --detach /tmp/eg-before <commit>
    .venv/bin/python -m bench.fixed_costs --home /tmp/eg-bench/neo4j \
        --tree before=/tmp/eg-before --tree after=. [--requests 400] [--operation search]

Each tree (a checkout of this repository) is served by its own `evidencegraph serve` on
127.0.0.1, with this checkout's virtualenv and the settings of bench/search_latency.py (hash
embedder, 384 dimensions, no authentication), all against the same Neo4j and the benchmark
graph (bench/build_graph.py builds it if need be). Every query goes to every service, in an
order that rotates from query to query (or from `--burst` queries to the next), so load from
other processes falls on all of them alike; queries are distinct, so none is answered from a
query-vector cache. Each service logs, per request, the statements it sent (`statements=N`).

Reported per tree: HTTP p50 and p95 as the client sees them, and the service process's CPU
time per request (user + system from /proc, over the timed requests: what a request costs,
whoever waits for a core), each also as a ratio to the first tree. `--operation typename`
sends `{ __typename }` instead of the search: HTTP and GraphQL with no database work.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench import target
from bench.build_graph import SCALES, build
from bench.search_paths import SEARCH_OPERATION, service_in
from bench.vocabulary import search_queries
from graph.driver import Graph

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TYPENAME = "{ __typename }"


@dataclass
class Tree:
    name: str
    path: Path
    url: str = ""
    pid: int = 0
    ms: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@contextmanager
def served(tree: Tree, bolt_uri: str, log_dir: Path) -> Iterator[None]:
    """`evidencegraph serve` from `tree.path` (its code first on the path) on a free port."""
    log_path = log_dir / f"{tree.name}.log"
    with service_in(bolt_uri, log_path, tree=tree.path, ready_seconds=120) as service:
        tree.url, tree.pid = service.url, service.pid
        yield


def ask(client: httpx.Client, operation: str, query: str) -> float:
    """One request; its wall time in ms. A GraphQL error stops the benchmark."""
    body: dict[str, Any] = (
        {"query": TYPENAME}
        if operation == "typename"
        else {"query": SEARCH_OPERATION, "variables": {"query": query}}
    )
    started = time.perf_counter()
    response = client.post("/graphql", json=body, headers={"accept": "application/json"})
    elapsed = (time.perf_counter() - started) * 1000
    answer = response.json()
    if response.status_code != 200 or "errors" in answer:
        raise RuntimeError(f"{client.base_url} answered {query!r} with {answer}")
    return elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(
    trees: list[Tree], operation: str, warmup: int, requests: int, seed: int, burst: int
) -> None:
    """Every query to every tree; `burst` queries in a row to one tree before the next."""
    queries = search_queries(warmup + requests, seed)
    clients = [httpx.Client(base_url=tree.url, timeout=60) for tree in trees]
    try:
        for start in range(0, len(queries), burst):
            if start == warmup:
                for tree in trees:
                    tree.cpu_seconds = -cpu_seconds(tree.pid)
            order = list(range(len(trees)))
            shift = (start // burst) % len(trees)
            for position in order[shift:] + order[:shift]:
                for index in range(start, min(start + burst, len(queries))):
                    elapsed = ask(clients[position], operation, queries[index])
                    if index >= warmup:
                        trees[position].ms.append(elapsed)
        for tree in trees:
            tree.cpu_seconds += cpu_seconds(tree.pid)
    finally:
        for client in clients:
            client.close()


def report(trees: list[Tree], operation: str, load: tuple[float, float]) -> str:
    first = trees[0]
    first_p50 = statistics.median(first.ms)
    first_cpu = first.cpu_seconds / len(first.ms)
    lines = [
        f"operation: {operation}; {len(first.ms)} timed requests a tree; "
        f"load average (1 min) {load[0]:.2f} → {load[1]:.2f}",
        "| tree | HTTP p50 ms | p95 ms | CPU ms / request | p50 / first | CPU / first |",
        "|---|---|---|---|---|---|",
    ]
    for tree in trees:
        p50 = statistics.median(tree.ms)
        cpu = tree.cpu_seconds / len(tree.ms)
        lines.append(
            f"| {tree.name} | {p50:.2f} | {percentile(tree.ms, 0.95):.2f} | {cpu * 1000:.2f} "
            f"| {p50 / first_p50:.3f} | {cpu / first_cpu:.3f} |"
        )
    return "\n".join(lines)


async def ensure_graph(bolt_uri: str, scale: str, seed: int) -> None:
    import neo4j

    async with neo4j.AsyncGraphDatabase.driver(
        bolt_uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        await build(Graph(driver), SCALES[scale], seed, False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.add_arguments(parser)
    parser.add_argument(
        "--tree",
        action="append",
        required=True,
        metavar="NAME=PATH",
        help="a checkout to serve; the first is the reference (give two or more)",
    )
    parser.add_argument("--operation", choices=("search", "typename"), default="search")
    parser.add_argument("--scale", choices=sorted(SCALES), default="S")
    parser.add_argument("--seed", type=int, default=7, help="the graph's seed")
    parser.add_argument("--query-seed", type=int, default=11)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument(
        "--burst",
        type=int,
        default=1,
        help="queries in a row to one tree (a service under steady traffic keeps its index "
        "catalog for 1 s; one request a tree at a time lets it expire on a busy machine)",
    )
    parser.add_argument("--logs", type=Path, default=Path("/tmp"))
    arguments = parser.parse_args()
    trees = [Tree(name, Path(path)) for name, _, path in (t.partition("=") for t in arguments.tree)]
    if arguments.warmup % arguments.burst:
        parser.error("--warmup must be a multiple of --burst")
    try:
        bolt_uri = target.bolt_uri(arguments)
        asyncio.run(ensure_graph(bolt_uri, arguments.scale, arguments.seed))
        with ExitStack() as stack:
            for tree in trees:
                stack.enter_context(served(tree, bolt_uri, arguments.logs))
            before = os.getloadavg()[0]
            run(trees, arguments.operation, arguments.warmup, arguments.requests,
                arguments.query_seed, arguments.burst)  # fmt: skip
            after = os.getloadavg()[0]
        print(report(trees, arguments.operation, (before, after)))
    finally:
        target.finish(arguments)


if __name__ == "__main__":
    main()
