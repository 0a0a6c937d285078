"""What one workspace can still learn of another, measured (issue 38 §5; docs/security.md,
"What stays shared").

    .venv/bin/python -m bench.shared_channels [--crowd 1000] [--label-entities 10000] [--runs 30]

It starts a private Neo4j on 127.0.0.1 (localneo4j, a fresh home, stopped at the end), or uses
the one `NEO4J_URI` names (it wipes that database: give it one of its own), and serves the app
in-process (tests/conftest.py `serving`, the hash embedder of 8 dimensions, queries scripted).
Two workspaces: `mine`, the caller's, holds a few entities and passages; `other` holds the
crowd each measure needs, written straight in Cypher as the write path leaves it (owner and
owner key set). Each measure is taken with and without `other`'s crowd:

- BM25: the LEXICAL score of my entity "Harbour Beacon" and of my passage "the harbour at dawn"
  for the query "harbour", before and after `other` adds `--crowd` names and passages holding
  "harbour" (Lucene's document frequency and average length span the whole index);
- semantic slots: p50 of my SEMANTIC search (limit 10) when `other` holds `--crowd` entities
  nearer the query than mine (the first read's 20 slots are all theirs, so the search reads
  again at the cap of 1,000) and when it holds none;
- entity labels: p50 of `entityLabels` for my key when `other` alone holds `--label-entities`
  entities of a label and when it holds none (graph/scope_labels.py looks through the label's
  FULLTEXT index by owner key), and as a label scan would take it (reading them all);
- query vectors: p50 of a MiniLM query embedding computed and cached (embedding/query_cache.py),
  the time a cache hit saves.

Figures depend on the machine; docs/security.md gives one run with its load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import neo4j

from graph import scope_labels
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.ownership import workspace_key
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support import known_graph
from tests.support.auth_material import bearer
from tests.support.graph_builder import unit_vector

MINE_KEY = "mine-reader-0123456789abcdef"

# One document, one current passage and its entities per row of `$entities`, in `$workspace`.
WRITE_ENTITIES = """
MERGE (d:Document {id: $workspace + '-doc'})
  ON CREATE SET d.workspace = $workspace, d.currentVersion = 1, d.title = 'bench'
MERGE (d)-[:HAS_PART]->(c:Chunk {id: $workspace + '-chunk'})
  ON CREATE SET c.documentId = d.id, c.version = 1, c.position = 0, c.text = 'bench',
                c.workspaceKey = $key
WITH c
UNWIND $entities AS row
CREATE (e:Entity {id: randomUUID(), name: row.name, embedding: row.embedding,
                  workspace: $workspace, workspaceKey: $key})
SET e:$(row.labels)
CREATE (e)-[:MENTIONED_IN]->(c)
"""
WRITE_PASSAGES = """
MERGE (d:Document {id: $workspace + '-doc'})
  ON CREATE SET d.workspace = $workspace, d.currentVersion = 1, d.title = 'bench'
WITH d
UNWIND range(0, size($texts) - 1) AS i
CREATE (d)-[:HAS_PART]->(:Chunk {id: randomUUID(), documentId: d.id, version: 1,
                                 position: 1000 + i, text: $texts[i], workspaceKey: $key})
"""
REMOVE_OTHER = "MATCH (n) WHERE n.workspace = 'other' OR n.documentId = 'other-doc' DETACH DELETE n"

ENTITIES = (
    "query($q: String!, $mode: SearchMode!, $s: ScopeInput) {"
    " searchEntities(query: $q, mode: $mode, limit: 10, scope: $s) { entity { name } score } }"
)
PASSAGES = (
    "query($q: String!, $s: ScopeInput) {"
    " searchPassages(query: $q, mode: LEXICAL, limit: 10, scope: $s) { passage { text } score } }"
)
MINE = {"workspaces": ["mine"]}


async def entities(graph: Graph, workspace: str, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), 5000):
        await graph.write(
            WRITE_ENTITIES,
            {
                "workspace": workspace,
                "key": workspace_key(workspace),
                "entities": rows[start : start + 5000],
            },
        )


def row(name: str, label: str, axis: int) -> dict[str, Any]:
    return {"name": name, "labels": [label], "embedding": unit_vector(TEST_DIMENSION, axis)}


async def p50(runs: int, call: Callable[[], Awaitable[Any]]) -> float:
    await call()  # a warm plan, a warm page cache
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        await call()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


async def execute(
    client: Client, query: str, variables: dict[str, Any], key: str | None = None
) -> Any:
    body = await client.execute(query, variables, bearer(key) if key else None)
    assert "errors" not in body, body
    return body["data"]


async def bm25(client: Client, graph: Graph, crowd: int) -> dict[str, Any]:
    async def scores() -> tuple[float, float]:
        found = await execute(client, ENTITIES, {"q": "harbour", "mode": "LEXICAL", "s": MINE})
        passages = await execute(client, PASSAGES, {"q": "harbour", "s": MINE})
        return (found["searchEntities"][0]["score"], passages["searchPassages"][0]["score"])

    before = await scores()
    await entities(graph, "other", [row(f"Harbour Light {n}", "Place", 5) for n in range(crowd)])
    texts = [f"harbour harbour notes {n}" for n in range(crowd)]
    await graph.write(
        WRITE_PASSAGES, {"workspace": "other", "key": workspace_key("other"), "texts": texts}
    )
    await graph.write("CALL db.awaitIndexes(300)", {})
    after = await scores()
    await graph.write(REMOVE_OTHER, {})
    return {
        "entity score before / after": [round(before[0], 4), round(after[0], 4)],
        "passage score before / after": [round(before[1], 4), round(after[1], 4)],
    }


async def semantic_slots(client: Client, graph: Graph, crowd: int, runs: int) -> dict[str, float]:
    client.embedder.script("quiet meadow", unit_vector(TEST_DIMENSION, 2))

    async def search() -> None:
        found = await execute(
            client, ENTITIES, {"q": "quiet meadow", "mode": "SEMANTIC", "s": MINE}
        )
        assert [hit["entity"]["name"] for hit in found["searchEntities"]][:1] == ["Quiet Meadow"]

    alone = await p50(runs, search)
    # Nearer the query than mine: the first read's slots are all theirs. Fewer than the cap of
    # 1,000, or the read again at the cap would not reach mine either (a recall loss, not a time).
    crowd = min(crowd, 900)
    await entities(graph, "other", [row(f"Crowd {n}", "Place", 2) for n in range(crowd)])
    await graph.write("CALL db.awaitIndexes(300)", {})
    crowded = await p50(runs, search)
    await graph.write(REMOVE_OTHER, {})
    return {
        "p50 ms, other holds none": round(alone, 1),
        "p50 ms, other holds the crowd": round(crowded, 1),
    }


async def entity_labels(keyed: Client, graph: Graph, count: int, runs: int) -> dict[str, float]:
    """My `entityLabels` while only `other` holds `count` entities of a label, and once they are
    gone; and what the look would take as a label scan (graph/scope_labels.py's other way)."""

    async def labels() -> None:
        listed = await execute(keyed, "{ entityLabels { label } }", {}, MINE_KEY)
        assert "Machine" not in [entry["label"] for entry in listed["entityLabels"]]

    await entities(graph, "other", [row(f"Machine {n}", "Machine", 4) for n in range(count)])
    await apply_schema(graph, TEST_DIMENSION)
    held = await p50(runs, labels)
    with_scan = scope_labels._keyed_index
    scope_labels._keyed_index = lambda catalog, label: None
    try:
        scanned = await p50(runs, labels)
    finally:
        scope_labels._keyed_index = with_scan
    await graph.write("MATCH (e:Machine) DETACH DELETE e", {})
    none = await p50(runs, labels)
    return {
        f"p50 ms, other holds {count:,} Machine entities": round(held, 1),
        "p50 ms, it holds none": round(none, 1),
        f"p50 ms, {count:,} read by a label scan instead": round(scanned, 1),
    }


async def query_vectors(runs: int) -> dict[str, float]:
    from embedding.minilm import MiniLMEmbedder
    from embedding.query_cache import QueryEmbedder

    queries = QueryEmbedder(MiniLMEmbedder())
    await queries.embed_query("warm up the model")
    missed: list[float] = []
    hit: list[float] = []
    for n in range(runs):
        text = f"who founded the harbour company {n}"
        for times in (missed, hit):
            began = time.perf_counter()
            await queries.embed_query(text, partition=("mine",))
            times.append((time.perf_counter() - began) * 1000)
    queries.close()
    return {
        "p50 ms, computed": round(statistics.median(missed), 2),
        "p50 ms, cached": round(statistics.median(hit), 3),
    }


def emptied(uri: str) -> None:
    """The database made the tests' known graph: nothing in it but the service's indexes."""
    with neo4j.GraphDatabase.driver(uri, auth=None) as driver:
        known_graph.reset(driver)


async def measure(uri: str, args: argparse.Namespace) -> dict[str, Any]:
    async with neo4j.AsyncGraphDatabase.driver(
        uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        graph = Graph(driver)
        emptied(uri)
        await entities(
            graph, "mine", [row("Harbour Beacon", "Place", 0), row("Quiet Meadow", "Place", 3)]
        )
        await graph.write(
            WRITE_PASSAGES,
            {"workspace": "mine", "key": workspace_key("mine"), "texts": ["the harbour at dawn"]},
        )
        await apply_schema(graph, TEST_DIMENSION, labels=["Place"])
        results: dict[str, Any] = {"load average": os.getloadavg()[0]}
        async with serving(uri, graph) as client:
            client.embedder.script("harbour", unit_vector(TEST_DIMENSION, 7))
            results["bm25"] = await bm25(client, graph, args.crowd)
            results["semantic slots"] = await semantic_slots(client, graph, args.crowd, args.runs)
        with tempfile.TemporaryDirectory() as folder:
            keys = Path(folder) / "keys.json"
            keys.write_text(json.dumps({MINE_KEY: ["mine"]}))
            async with serving(
                uri, graph, AUTH_MODE="apikeys", AUTH_API_KEYS_FILE=str(keys)
            ) as keyed:
                results["entity labels"] = await entity_labels(
                    keyed, graph, args.label_entities, args.runs
                )
        emptied(uri)
    results["query vectors"] = await query_vectors(args.runs)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowd", type=int, default=1000)
    parser.add_argument("--label-entities", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    uri = os.environ.get("NEO4J_URI")
    if uri:
        print(json.dumps(asyncio.run(measure(uri, args)), indent=2))
        return
    from localneo4j.pytest_server import private_server
    from localneo4j.server import stop

    with tempfile.TemporaryDirectory() as root:
        server = private_server(Path(root))
        try:
            print(json.dumps(asyncio.run(measure(server.bolt_uri, args)), indent=2))
        finally:
            stop(server.home)


if __name__ == "__main__":
    main()
