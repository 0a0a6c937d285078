"""Lexical candidates from the caller's workspaces (issue 25 §2), before and after: a LEXICAL
search for a workspace that holds 1% of a 100,000-entity graph.

    git archive <commit before the change> | tar -x -C /tmp/eg-lexical-before
    .venv/bin/python -m bench.workspace_candidates --home /tmp/eg-lexical/neo4j \\
        --before /tmp/eg-lexical-before --runs 300

The graph (built once, in UNWIND batches straight in Cypher, not through the loader; a
`:BenchWorkspaceCandidates` node records it): 100 workspaces of 1,000 `Person` entities each,
one committed version of 10 documents × 10 passages per workspace, each entity mentioned by one
passage of its own workspace and owner-keyed as the write path keeps it (`workspaceKey`,
graph/ownership.py). A name is 1 to 4 distinct words of a 40-word vocabulary, so each query
word is in about 6% of the names of every workspace; the FULLTEXT indexes are this checkout's
(`schema apply`: name and workspaceKey).

The cases: the query is one vocabulary word (10 words, in turn), LEXICAL, `limit` 10, scope the
1% workspace `ws000`. Each side runs the app's GraphQL schema in a process of its own with its
checkout's code (bench/hub_entities.py `Side`), taking turns request by request. Both read the
same keyed index: the code before does not name the field nor the keys, so it reads it exactly
as it read its own name-only index (Lucene keeps statistics per field).

For each side: answers (hits per search), recall against the workspace alone (of the workspace's
entities whose name holds the word, the share of the first `limit` found: |hits| /
min(limit, |relevant|), every hit being relevant), p50/p95 latency over `--runs` requests, and
database hits (PROFILE, one request per word).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
THIS_CHECKOUT = HERE.parents[1]

WORKSPACES = 100
ENTITIES_PER_WORKSPACE = 1_000  # 100,000 in all; the target holds 1%
DOCUMENTS_PER_WORKSPACE = 10
PASSAGES_PER_DOCUMENT = 10
TARGET = "ws000"
LIMIT = 10
DIMENSION = 384
VOCABULARY = tuple(
    [
        "harbor",
        "granite",
        "willow",
        "ember",
        "falcon",
        "meadow",
        "copper",
        "lantern",
        "summit",
        "orchard",
        "cobalt",
        "thistle",
        "beacon",
        "quarry",
        "saffron",
        "juniper",
        "tundra",
        "marble",
        "cinder",
        "heron",
        "prairie",
        "walnut",
        "glacier",
        "bramble",
        "cedar",
        "osprey",
        "canyon",
        "pewter",
        "lagoon",
        "sparrow",
        "basalt",
        "clover",
        "drift",
        "fennel",
        "garnet",
        "hollow",
        "indigo",
        "kestrel",
        "linden",
        "maple",
    ]
)
QUERIES = VOCABULARY[:10]

SEARCH = """
query($query: String!, $limit: Int!, $scope: ScopeInput) {
  searchEntities(query: $query, mode: LEXICAL, limit: $limit, scope: $scope) {
    entity { id } lexicalRank
  }
}
"""


def workspace(index: int) -> str:
    return f"ws{index:03d}"


def names() -> list[tuple[str, str, int]]:
    """(entity id, name, workspace index) of every entity, deterministic."""
    chooser = random.Random(25)
    rows = []
    for index in range(WORKSPACES * ENTITIES_PER_WORKSPACE):
        words = chooser.sample(VOCABULARY, chooser.randint(1, 4))
        entity_id = str(uuid.UUID(int=chooser.getrandbits(128), version=4))
        rows.append((entity_id, " ".join(words).title(), index // ENTITIES_PER_WORKSPACE))
    # Written in random order: Lucene breaks equal scores by insertion order, which must not
    # favour any workspace.
    chooser.shuffle(rows)
    return rows


def relevant(rows: list[tuple[str, str, int]], word: str) -> set[str]:
    """The target workspace's entities whose name holds `word`: what a search of it alone finds."""
    return {i for i, name, w in rows if w == 0 and word in name.lower().split()}


DOCUMENTS = (
    "UNWIND $documents AS doc"
    " CREATE (d:Document {id: doc.id, workspace: doc.workspace, title: doc.id, currentVersion: 1})"
    " WITH d, doc UNWIND range(0, $passages - 1) AS position"
    " CREATE (d)-[:HAS_PART]->(:Chunk {id: doc.id + '-' + position, documentId: doc.id,"
    "  version: 1, position: position, text: 'passage ' + position, workspaceKey: doc.key})"
)
ENTITIES = (
    "UNWIND $entities AS row"
    " MATCH (c:Chunk {id: row.passage})"
    " CREATE (e:Entity:Person {id: row.id, name: row.name, workspaceKey: row.key})"
    " CREATE (e)-[:MENTIONED_IN]->(c)"
)


async def build(graph: Any, rows: list[tuple[str, str, int]]) -> None:
    from graph.graph_schema import apply_constraints, apply_schema
    from graph.ownership import workspace_key

    if await graph.read("MATCH (n:BenchWorkspaceCandidates) RETURN n", {}):
        return
    await apply_constraints(graph)
    documents = [
        {
            "id": f"{workspace(w)}-doc{d}",
            "workspace": workspace(w),
            "key": workspace_key(workspace(w)),
        }
        for w in range(WORKSPACES)
        for d in range(DOCUMENTS_PER_WORKSPACE)
    ]
    for start in range(0, len(documents), 200):
        chunk = documents[start : start + 200]
        await graph.write(DOCUMENTS, {"documents": chunk, "passages": PASSAGES_PER_DOCUMENT})
    per_workspace = DOCUMENTS_PER_WORKSPACE * PASSAGES_PER_DOCUMENT
    batch = []
    for index, (entity_id, name, w) in enumerate(rows):
        passage = int(entity_id[:8], 16) % per_workspace
        batch.append(
            {
                "id": entity_id,
                "name": name,
                "key": workspace_key(workspace(w)),
                "passage": f"{workspace(w)}-doc{passage // PASSAGES_PER_DOCUMENT}"
                f"-{passage % PASSAGES_PER_DOCUMENT}",
            }
        )
        if len(batch) == 10_000:
            await graph.write(ENTITIES, {"entities": batch})
            batch = []
            _progress(f"{index + 1:,} entities")
    if batch:
        await graph.write(ENTITIES, {"entities": batch})
    await apply_schema(graph, DIMENSION, labels=["Person"])
    await graph.write("CREATE (:BenchWorkspaceCandidates)", {})


@dataclass
class Figures:
    side: str
    ms: list[float]
    hits: list[int]
    recall: list[float]
    db_hits: dict[str, int]

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.ms)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(bolt_uri: str, before: Path | None, runs: int) -> list[Figures]:
    import neo4j

    from bench.hub_entities import Case, Side
    from graph.driver import Graph

    rows = names()
    driver = neo4j.AsyncGraphDatabase.driver(bolt_uri, auth=None)
    try:
        await build(Graph(driver), rows)
    finally:
        await driver.close()
    truth = {word: relevant(rows, word) for word in QUERIES}
    sides = [("after", THIS_CHECKOUT)] + ([("before", before)] if before else [])
    running = [Side(name, checkout, bolt_uri) for name, checkout in sides]
    figures = {side.name: Figures(side.name, [], [], [], {}) for side in running}
    operation = Case("lexical", "lexical", "ordinary", SEARCH, [])
    try:
        for side in running:  # warm up: the catalog, the plans, the page cache
            for word in QUERIES:
                _warm_up(side, operation, _variables(word))
        for run in range(runs):
            word = QUERIES[run % len(QUERIES)]
            for side in running if run % 2 == 0 else reversed(running):
                answer = side.run(operation, _variables(word), False)
                found = {hit["entity"]["id"] for hit in answer["data"]["searchEntities"]}
                assert found <= truth[word], f"{side.name} answered outside the workspace"
                kept = figures[side.name]
                kept.ms.append(answer["ms"])
                kept.hits.append(len(found))
                kept.recall.append(len(found) / min(LIMIT, len(truth[word])))
        for side in running:
            for word in QUERIES:
                profiled = side.run(operation, _variables(word), True)
                figures[side.name].db_hits[word] = profiled["db_hits"]
    finally:
        for side in running:
            side.close()
    return list(figures.values())


def _warm_up(side: Any, operation: Any, variables: dict[str, Any], tries: int = 3) -> None:
    """A cold statement is planned on its first run, which on a loaded machine can take longer
    than the statement time limit: try again (the plan is kept), then go on."""
    for _ in range(tries):
        try:
            side.run(operation, variables, False)
            return
        except SystemExit as error:
            _progress(f"warm-up of the {side.name} side: {error}")


def _variables(word: str) -> dict[str, Any]:
    return {"query": word, "limit": LIMIT, "scope": {"workspaces": [TARGET]}}


def table(figures: list[Figures]) -> str:
    lines = [
        "| side | searches | hits per search (mean) | recall vs the workspace alone (mean, min)"
        " | p50 ms | p95 ms | db hits per search (mean) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in figures:
        lines.append(
            f"| {row.side} | {len(row.ms)} | {sum(row.hits) / len(row.hits):.2f}"
            f" | {sum(row.recall) / len(row.recall):.3f}, {min(row.recall):.3f}"
            f" | {row.percentile(0.5):.1f} | {row.percentile(0.95):.1f}"
            f" | {sum(row.db_hits.values()) / len(row.db_hits):,.0f} |"
        )
    return "\n".join(lines)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--runs", type=int, default=300)
    from bench import target

    target.add_arguments(parser)
    arguments = parser.parse_args()
    load_before = os.getloadavg()
    try:
        figures = asyncio.run(measure(target.bolt_uri(arguments), arguments.before, arguments.runs))
    finally:
        target.finish(arguments)
    print(f"load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(table(figures))


if __name__ == "__main__":
    main()
