"""How close the service's entity search is to the floor: one hand-written Cypher statement.

    .venv/bin/python -m bench.search_latency --home /tmp/eg-bench/neo4j [--requests 300]

In one run, against the benchmark graph (built first if need be, `bench/build_graph.py`):
1. `evidencegraph serve` starts in a subprocess on 127.0.0.1 (EMBEDDER=hash, EMBEDDER_DIM=384,
   AUTH_MODE=none);
2. for each of `--warmup` + `--requests` distinct queries (names from the vocabulary, so no
   request is a cache hit), the same hybrid `searchEntities(limit: 10)` with 3 evidence
   passages (text and document title) runs five ways, in rotating order so load from other
   processes falls on all of them alike: over HTTP; in this process straight into the
   Strawberry schema the app serves (no HTTP); the service's search statement alone; the
   hand-written statement;
3. a sample of queries, some scoped and with other limits, is answered by the service and by
   the hand-written statement, and the answers compared (entity ids in order, evidence ids,
   status, ranks, scores);
4. PROFILE gives each statement's database hits for some queries.
Prints a table; `--json-out` appends the numbers as one JSON line (bench/notebook.md).
The machine is shared: compare the ratios of one run, not milliseconds across runs.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import importlib.util
import io
import json
import math
import os
import pstats
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import neo4j
import uvloop

from bench import target
from bench.build_graph import SCALES, build
from bench.handwritten_search import SEARCH, HandwrittenSearch, read_indexes
from bench.search_paths import (
    HttpService,
    InProcessSample,
    InProcessService,
    ServiceStatement,
    in_process_service,
    service_process,
)
from bench.vocabulary import search_queries
from graph.driver import Graph

PATHS = ("http", "in-process", "service statement", "hand-written")


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


@dataclass
class Measured:
    ms: dict[str, list[float]]
    server_ms: dict[str, list[float]]
    in_process: dict[str, list[InProcessSample]]


async def measure(
    queries: Sequence[str],
    warmup: int,
    http: HttpService,
    services: dict[str, InProcessService],
    statement: ServiceStatement,
    floor: HandwrittenSearch,
) -> Measured:
    floor_server_ms = 0.0

    async def run_http(query: str) -> None:
        http.search(query)  # blocking on purpose: see HttpService

    async def run_statement(query: str) -> None:
        await statement.search(query)

    async def run_floor(query: str) -> None:
        nonlocal floor_server_ms
        floor_server_ms = (await floor.search(query)).server_ms

    runs: dict[str, Callable[[str], Awaitable[Any]]] = {
        "http": run_http,
        **{path: service.search for path, service in services.items()},
        "service statement": run_statement,
        "hand-written": run_floor,
    }
    ms: dict[str, list[float]] = {path: [] for path in PATHS}
    server: dict[str, list[float]] = {"service statement": [], "hand-written": []}
    for number, query in enumerate(queries):
        # Each query runs every way, in an order that rotates, so a burst of load from other
        # processes falls on all of them alike. Each way runs the same query once only
        # (its query-vector cache stays cold); Neo4j caches no results.
        shift = number % len(PATHS)
        for path in PATHS[shift:] + PATHS[:shift]:
            started = time.perf_counter()
            await runs[path](query)
            elapsed = (time.perf_counter() - started) * 1000
            if number >= warmup:
                ms[path].append(elapsed)
        if number >= warmup:
            server["service statement"].append(statement.graph.server_ms)
            server["hand-written"].append(floor_server_ms)
    return Measured(
        ms=ms,
        server_ms=server,
        in_process={path: service.samples[warmup:] for path, service in services.items()},
    )


# --- correctness ---------------------------------------------------------------------------


def from_service(hit: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": hit["entity"]["id"],
        "name": hit["entity"]["name"],
        "labels": sorted(hit["entity"]["labels"]),
        "status": hit["status"],
        "lexicalRank": hit["lexicalRank"],
        "semanticRank": hit["semanticRank"],
        "score": hit["score"],
        "evidence": [(p["id"], p["text"], p["document"]["title"]) for p in hit["evidence"]],
    }


def from_floor(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "labels": sorted(row["labels"]),
        "status": "SUPPORTED" if row["supported"] else "UNSUPPORTED",
        "lexicalRank": row["lexicalRank"],
        "semanticRank": row["semanticRank"],
        "score": row["score"],
        "evidence": [(p["id"], p["text"], p["title"]) for p in row["evidence"]],
    }


def differences(service: list[dict[str, Any]], floor: list[dict[str, Any]]) -> list[str]:
    """What differs, most important first; empty when the answers agree."""
    found = []
    if [h["id"] for h in service] != [h["id"] for h in floor]:
        found.append("entity ids or their order")
    for a, b in zip(service, floor, strict=False):
        if a["evidence"] != b["evidence"]:
            found.append(f"evidence of {a['id']}")
        for key in ("name", "labels", "status", "lexicalRank", "semanticRank"):
            if a["id"] == b["id"] and a[key] != b[key]:
                found.append(f"{key} of {a['id']}: {a[key]!r} vs {b[key]!r}")
        if a["id"] == b["id"] and not math.isclose(a["score"], b["score"], rel_tol=1e-9):
            found.append(f"score of {a['id']}: {a['score']!r} vs {b['score']!r}")
    return found


async def check_answers(
    http: HttpService, floor: HandwrittenSearch, cases: Sequence[tuple[str, dict[str, Any]]]
) -> tuple[int, list[str]]:
    agreed, reports = 0, []
    for query, options in cases:
        service = [from_service(hit) for hit in http.search(query, **options)]
        handwritten = [from_floor(row) for row in (await floor.search(query, **options)).rows]
        found = differences(service, handwritten)
        if not found:
            agreed += 1
            continue
        described = {k: (v if k != "document_ids" else f"{len(v)} ids") for k, v in options.items()}
        reports.append(f"{query!r} {described}: {'; '.join(found[:4])}")
        for name, hits in (("service", service), ("hand-written", handwritten)):
            reports.append(
                f"    {name}: "
                + ", ".join(
                    f"{h['name']}({h['lexicalRank']},{h['semanticRank']},{h['status'][0]})"
                    for h in hits
                )
            )
    return agreed, reports


def correctness_cases(
    queries: Sequence[str], document_ids: Sequence[str]
) -> list[tuple[str, dict[str, Any]]]:
    """Plain hybrid searches, scoped ones (a workspace; a set of documents, which empties the
    first semantic read and so exercises the read at the cap), other limits."""
    cases: list[tuple[str, dict[str, Any]]] = [(q, {}) for q in queries[:60]]
    cases += [(q, {"workspaces": ["globex"]}) for q in queries[60:80]]
    cases += [(q, {"document_ids": list(document_ids)}) for q in queries[80:100]]
    cases += [(q, {"limit": 50, "support_limit": 5}) for q in queries[100:110]]
    cases += [(q, {"limit": 3, "support_limit": 0}) for q in queries[110:120]]
    return cases


# --- database hits -------------------------------------------------------------------------


def db_hits(plan: dict[str, Any]) -> int:
    return int(plan.get("dbHits", 0)) + sum(db_hits(child) for child in plan.get("children", []))


async def profiled_hits(driver: neo4j.AsyncDriver, query: Any, parameters: dict[str, Any]) -> int:
    async with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
        result = await session.run("PROFILE " + query, parameters)
        summary = await result.consume()
    return db_hits(summary.profile or {})


# --- the run -------------------------------------------------------------------------------


def summarise(measured: Measured) -> dict[str, Any]:
    def p(values: Sequence[float]) -> dict[str, float]:
        return {"p50": percentile(values, 0.5), "p95": percentile(values, 0.95)}

    ms = {path: p(values) for path, values in measured.ms.items()}
    floor = ms["hand-written"]

    def in_process(path: str) -> dict[str, Any]:
        samples = measured.in_process[path]
        return {
            "statements_median": statistics.median(s.statements for s in samples),
            "statements_max": max(s.statements for s in samples),
            "db_in_flight_p50": percentile([s.db_ms for s in samples], 0.5),
            "strawberry_and_python_p50": percentile([s.ms - s.db_ms for s in samples], 0.5),
        }

    return {
        "requests": len(measured.ms["http"]),
        "ms": ms,
        "server_ms": {path: p(values) for path, values in measured.server_ms.items()},
        "ratio_p50": ms["http"]["p50"] / floor["p50"],
        "ratio_p95": ms["http"]["p95"] / floor["p95"],
        "http_p50": ms["http"]["p50"] - ms["in-process"]["p50"],
        "in_process": {path: in_process(path) for path in measured.in_process},
    }


def print_report(run: dict[str, Any]) -> None:
    ms, server = run["ms"], run["server_ms"]
    print(
        f"\n{run['label']}: {run['requests']} requests, scale {run['scale']}, Rust codec"
        f" {'on' if run['rust_codec'] else 'off'}, load average {run['load']}"
    )
    print("| path | p50 ms | p95 ms | Neo4j-reported p50 ms |\n|---|---|---|---|")
    for path in PATHS:
        reported = f"{server[path]['p50']:.0f}" if path in server else ""
        print(f"| {path} | {ms[path]['p50']:.2f} | {ms[path]['p95']:.2f} | {reported} |")
    print(
        f"ratio service over HTTP / hand-written: p50 {run['ratio_p50']:.2f}x,"
        f" p95 {run['ratio_p95']:.2f}x (in-process p50 "
        f"{ms['in-process']['p50'] / ms['hand-written']['p50']:.2f}x)"
    )
    for path, parts in run["in_process"].items():
        print(
            f"{path}: statements per request median {parts['statements_median']}, max"
            f" {parts['statements_max']}; p50 Strawberry + Python"
            f" {parts['strawberry_and_python_p50']:.2f} ms, statements in flight"
            f" {parts['db_in_flight_p50']:.2f} ms"
        )
    print(f"HTTP (over HTTP minus in-process, p50): {run['http_p50']:.2f} ms")
    hits = run["db_hits_median"]
    print(
        f"database hits (median of {hits['queries']}): service statement {hits['service']},"
        f" hand-written {hits['hand-written']}"
    )
    print(f"answers agree: {run['agreed']}/{run['checked']}")
    for line in run["disagreements"]:
        print("  " + line)


async def run_all(arguments: argparse.Namespace, uri: str, client: httpx.Client) -> dict[str, Any]:
    queries = search_queries(arguments.warmup + arguments.requests + 120, arguments.query_seed)
    timed, checked = queries[: arguments.warmup + arguments.requests], queries[-120:]
    async with (
        neo4j.AsyncGraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver,
        in_process_service(uri) as service,
    ):
        floor = HandwrittenSearch(driver, await read_indexes(driver), 384)
        statement = await ServiceStatement.create(driver)
        http = HttpService(client)
        services = {"in-process": service}
        load_before = os.getloadavg()
        measured = await measure(timed, arguments.warmup, http, services, statement, floor)
        load_after = os.getloadavg()

        records, _, _ = await driver.execute_query(
            "MATCH (d:Document) RETURN d.id AS id ORDER BY d.id SKIP 100 LIMIT 300"
        )
        cases = correctness_cases(checked, [r["id"] for r in records])
        agreed, disagreements = await check_answers(http, floor, cases)

        hits: dict[str, list[int]] = {"service": [], "hand-written": []}
        for query in checked[:20]:
            await statement.search(query)
            assert statement.graph.last is not None
            hits["service"].append(await profiled_hits(driver, *statement.graph.last))
            parameters = floor.parameters(query)
            hits["hand-written"].append(await profiled_hits(driver, SEARCH, parameters))

        if arguments.cprofile:
            unused = [q for q in search_queries(400, arguments.query_seed + 1) if q not in queries]
            await profile_in_process(service, unused[:200], arguments.cprofile)

    run = summarise(measured)
    run.update(
        scale=arguments.scale,
        load=f"{load_before[0]:.2f} before, {load_after[0]:.2f} after",
        checked=len(cases),
        agreed=agreed,
        disagreements=disagreements,
        db_hits_median={
            "queries": len(hits["service"]),
            "service": statistics.median(hits["service"]),
            "hand-written": statistics.median(hits["hand-written"]),
        },
        when=time.strftime("%Y-%m-%d %H:%M:%S"),
        label=arguments.label,
        # The driver's Rust codec, if installed, serves the service and the floor alike.
        rust_codec=importlib.util.find_spec("neo4j._rust") is not None,
    )
    return run


async def profile_in_process(
    service: InProcessService, queries: Sequence[str], output: Path
) -> None:
    """cProfile of in-process searches: where the Python time of a request goes."""
    profiler = cProfile.Profile()
    profiler.enable()
    for query in queries:
        await service.search(query)
    profiler.disable()
    profiler.dump_stats(output)
    report = io.StringIO()
    pstats.Stats(profiler, stream=report).sort_stats("tottime").print_stats(30)
    print(report.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.add_arguments(parser)
    parser.add_argument("--scale", choices=sorted(SCALES), default="S")
    parser.add_argument("--seed", type=int, default=7, help="the graph's seed")
    parser.add_argument("--query-seed", type=int, default=11)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--json-out", type=Path, default=None)
    parser.add_argument("--label", default="run", help="a name for this run in the report")
    parser.add_argument(
        "--cprofile", type=Path, default=None, help="also profile 200 in-process searches"
    )
    arguments = parser.parse_args()
    try:
        uri = target.bolt_uri(arguments)

        async def prepare() -> None:
            async with neo4j.AsyncGraphDatabase.driver(
                uri, auth=None, notifications_min_severity="OFF"
            ) as driver:
                await build(Graph(driver), SCALES[arguments.scale], arguments.seed, wipe=False)

        asyncio.run(prepare())
        log = Path(tempfile.gettempdir()) / f"eg-bench-service-{os.getpid()}.log"
        with (
            service_process(uri, log) as base_url,
            httpx.Client(base_url=base_url, timeout=30) as client,
        ):
            # The service runs on uvloop (uvicorn's default when installed); so does the
            # client side here, so the in-process and floor paths meet the same event loop.
            run = uvloop.run(run_all(arguments, uri, client))
        print_report(run)
        if arguments.json_out:
            with arguments.json_out.open("a", encoding="utf-8") as out:
                out.write(json.dumps(run) + "\n")
    finally:
        target.finish(arguments)


if __name__ == "__main__":
    main()
