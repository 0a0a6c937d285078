"""Do the floor and the service answer alike? search_latency.py's answer check, without timing.

    .venv/bin/python -m bench.floor_agreement --uri bolt://127.0.0.1:PORT [--plain 330]

Against a benchmark graph already built (`bench/build_graph.py`; this script only reads, it
neither builds nor changes the graph or its indexes), `evidencegraph serve` starts on
127.0.0.1 and answers the 120 cases `bench/search_latency.py` checks (the same queries with
its defaults: plain, scoped to a workspace, scoped to 300 documents, other limits), plus
`--plain` more plain hybrid searches (the queries search_latency.py times); each case is one
request to the service and one run of the floor, one after the other, so it costs little.
Prints how many agree (same ids in the same order, same status, ranks, score and evidence)
and every difference.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import neo4j

from bench import target
from bench.handwritten_search import HandwrittenSearch, read_indexes
from bench.search_latency import check_answers, correctness_cases
from bench.search_paths import DIMENSION, HttpService, service_process
from bench.vocabulary import search_queries

# search_latency.py's defaults: --warmup 30 --requests 300 --query-seed 11, then 120 checked.
TIMED, CHECKED, QUERY_SEED = 330, 120, 11


@dataclass
class Agreement:
    agreed: int
    checked: int
    disagreements: list[str]


async def agreement(uri: str, client: httpx.Client, plain: int) -> dict[str, Agreement]:
    """search_latency.py's 120 cases, and `plain` more plain searches, each set on its own."""
    queries = search_queries(TIMED + CHECKED, QUERY_SEED)
    async with neo4j.AsyncGraphDatabase.driver(
        uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        floor = HandwrittenSearch(driver, await read_indexes(driver), DIMENSION)
        records, _, _ = await driver.execute_query(
            "MATCH (d:Document) RETURN d.id AS id ORDER BY d.id SKIP 100 LIMIT 300",
            routing_=neo4j.RoutingControl.READ,
        )
        sets: dict[str, list[tuple[str, dict[str, Any]]]] = {
            "search_latency.py's cases": correctness_cases(
                queries[-CHECKED:], [r["id"] for r in records]
            ),
            "more plain searches": [(query, {}) for query in queries[:plain]],
        }
        found = {}
        for name, cases in sets.items():
            if cases:
                agreed, disagreements = await check_answers(HttpService(client), floor, cases)
                found[name] = Agreement(agreed, len(cases), disagreements)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.add_arguments(parser)
    parser.add_argument(
        "--plain", type=int, default=0, help=f"plain hybrid searches beyond the 120 (≤ {TIMED})"
    )
    arguments = parser.parse_args()
    try:
        uri = target.bolt_uri(arguments)
        log = Path(tempfile.gettempdir()) / f"eg-bench-agreement-{os.getpid()}.log"
        with (
            service_process(uri, log) as base_url,
            httpx.Client(base_url=base_url, timeout=30) as client,
        ):
            found = asyncio.run(agreement(uri, client, min(arguments.plain, TIMED)))
        for name, result in found.items():
            print(f"{name}: answers agree {result.agreed}/{result.checked}")
            for line in result.disagreements:
                print("  " + line)
    finally:
        target.finish(arguments)


if __name__ == "__main__":
    main()
