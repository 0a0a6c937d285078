"""A cost bomb against one caller's usual latency (issue 27): one caller sends documents of 30
aliases of maximum-bound walks as fast as they are refused, while another caller's searches are
timed, first alone and then throughout the bombing.

    .venv/bin/python -m bench.cost_bomb [--seconds 20] [--bombers 8]

On scale S (bench/build_graph.py, the graph `make bench` builds under --work, built here if
missing), one service process (`--workers 1`, API keys, JSON request log). The other caller is
one connection asking bench/vocabulary.py's searches one after another (httpx); the bombers are
wrk connections (bench/wrk_graphql.lua, with the bomb's key). Printed: the other caller's
requests, p50 and p95 alone and bombed; the bombs sent and refused `COST_LIMIT_EXCEEDED`; and,
from the service's request log, the Bolt statements the refused bombs sent (the log's
`statements`: each request's own count, api/request_log.py), which should be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from bench import build_graph
from bench.load import (
    SERVICE_OPERATION,
    percentile,
    prepare_graph,
    run_wrk,
    service,
    write_bodies,
)
from bench.vocabulary import search_queries
from localneo4j.server import stop

BOMBER_KEY = "bench-bomber-0123456789abcdef"
CALLER_KEY = "bench-caller-fedcba9876543210"
WALKS = 30


def bomb(entity_id: str) -> str:
    """30 aliases of a walk at every bound's maximum: far over the default cost limit (the
    issue's bomb; tests/test_front_door.py sends the same)."""
    walk = (
        f'walk(entityId: "{entity_id}", depth: 2, maxNodes: 500, maxEdges: 1000,'
        " maxCandidates: 5000) { nodes { id } edges { id } }"
    )
    return "{ " + " ".join(f"w{i}: {walk}" for i in range(WALKS)) + " }"


async def timed_searches(url: str, queries: list[str], seconds: float) -> list[float]:
    """The other caller: one search after another for `seconds`; each one's milliseconds."""
    latencies: list[float] = []
    headers = {"authorization": f"Bearer {CALLER_KEY}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
        deadline = time.monotonic() + seconds
        index = 0
        while time.monotonic() < deadline:
            body = {"query": SERVICE_OPERATION, "variables": {"query": queries[index]}}
            index = (index + 1) % len(queries)
            started = time.perf_counter()
            answer = (await http.post("/graphql", json=body)).json()
            latencies.append((time.perf_counter() - started) * 1000)
            if answer.get("errors"):
                raise SystemExit(f"the other caller was refused: {answer['errors']}")
    return latencies


def summary(latencies: list[float]) -> dict[str, float]:
    return {
        "requests": len(latencies),
        "p50_ms": round(percentile(latencies, 0.5), 1),
        "p95_ms": round(percentile(latencies, 0.95), 1),
    }


def refused_bombs(log: Path) -> dict[str, int]:
    """The request log's lines for refused bombs: how many, and the statements they sent."""
    refused = statements = 0
    for line in log.read_text().splitlines():
        if not line.startswith("{"):
            continue
        record = json.loads(line)
        if record.get("event") == "request" and record.get("errorCode") == "COST_LIMIT_EXCEEDED":
            refused += 1
            statements += record.get("statements") or 0
    return {"refused_in_log": refused, "statements_sent_by_refused": statements}


async def measure(arguments: argparse.Namespace) -> dict[str, Any]:
    home = arguments.work / "neo4j-S"
    logs = arguments.work / "logs-S"
    logs.mkdir(parents=True, exist_ok=True)
    bolt_uri = await prepare_graph(home, "S")
    keys = logs / "cost-bomb-keys.json"
    keys.write_text(json.dumps({k: list(build_graph.WORKSPACES) for k in (BOMBER_KEY, CALLER_KEY)}))
    # One bomb sent again and again (its parse, validation and price are kept by its text), or
    # with --vary a new entity id in each, so that every one is parsed, validated and priced.
    count = 5000 if arguments.vary else 1
    bombs = write_bodies(
        logs / "cost-bomb.jsonl", [{"query": bomb(str(uuid.uuid4()))} for _ in range(count)]
    )
    log = logs / "cost-bomb-service.log"
    settings = {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys)}
    queries = search_queries(2000, seed=23)
    try:
        with service(bolt_uri, 1, logs, settings, log.name) as server:
            await timed_searches(server.url, queries[-50:], 3)  # warm-up
            half = len(queries) // 2
            alone = await timed_searches(server.url, queries[:half], arguments.seconds)
            bombing = asyncio.create_task(
                asyncio.to_thread(
                    run_wrk,
                    server.url,
                    bombs,
                    arguments.bombers,
                    arguments.seconds + 2,
                    f"Bearer {BOMBER_KEY}",
                )
            )
            await asyncio.sleep(1)  # the bombers are under way before the timing starts
            bombed = await timed_searches(server.url, queries[half:], arguments.seconds)
            figures = await bombing
    finally:
        if arguments.stop:
            stop(home)
    return {
        "seconds": arguments.seconds,
        "bombers": arguments.bombers,
        "varied_documents": arguments.vary,
        "alone": summary(alone),
        "bombed": summary(bombed),
        "bombs_sent": figures["requests"],
        "bombs_refused_per_wrk": figures["graphql_errors"],
        **refused_bombs(log),
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="each phase (20)")
    parser.add_argument("--bombers", type=int, default=8, help="wrk connections bombing (8)")
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/evidencegraph-bench"), help="Neo4j homes"
    )
    parser.add_argument("--vary", action="store_true", help="a new document in every bomb")
    parser.add_argument("--stop", action="store_true", help="stop the Neo4j afterwards")
    arguments = parser.parse_args()
    print(json.dumps(asyncio.run(measure(arguments)), indent=1))


if __name__ == "__main__":
    main()
