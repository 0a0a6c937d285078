"""The floor: hybrid entity search (contract §3) as ONE hand-written Cypher statement.

Written from contract §1–§3 and the lexical rule of docs/retrieval-quality.md alone, not from
graph/entity_search.py, so the two can check each other. What a careful engineer who knows the
graph would send:
- every entity label's FULLTEXT (name) and VECTOR (embedding) index, their names read once
  when the client starts (not per request: a floor, not a service);
- the query's content words (plain words without function words, one-letter fragments and
  possessive 's) to the FULLTEXT index, keeping a name only if it holds at least half of the
  distinct ones (here by splitting the name on spaces and punctuation, which suffices for the
  benchmark's generated names);
- each label reads `k = min(2·limit, 1000)` candidates per index; an entity found by several
  labels keeps its best score per list;
- only returnable candidates (an in-scope passage mentions them, of a version its document
  has reached and written by no unfinished job: contract §2 keeps everything else a job
  wrote invisible) are ranked, so ranks are positions among what the caller may see, ties by
  entity id;
- the semantic read of a label is repeated at the cap when it came back full and fewer than
  `limit` of it are returnable;
- RRF with k = 60; evidence: up to `supportLimit` visible passages (in scope, current
  version, written by no unfinished job), by document id then position, with text and title.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

import neo4j

from embedding.hashing import HashEmbedder
from retrieval.stop_words import STOP_WORDS

IN_SCOPE: LiteralString = (
    "($workspaces IS NULL OR d.workspace IN $workspaces)"
    " AND ($documentIds IS NULL OR d.id IN $documentIds)"
)
RETURNABLE: LiteralString = (
    "EXISTS { (node)-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
    " WHERE " + IN_SCOPE + " AND c.version <= d.currentVersion"
    " AND (c.jobId IS NULL OR EXISTS { MATCH (job:Job {id: c.jobId})"
    " WHERE job.status = 'COMMITTED' }) }"
)

SEARCH: LiteralString = (
    "CALL () {"
    " UNWIND $fulltextIndexes AS index"
    " CALL db.index.fulltext.queryNodes(index, $words, {limit: $k}) YIELD node, score"
    " WITH node, score, split(replace(toLower(node.name), \"'s\", ''),"
    "  [' ', '.', ',', ';', ':', '-', '(', ')', '&', '/']) AS tokens"
    " WHERE size([word IN $distinctWords WHERE word IN tokens]) >= $required"
    " WITH node, max(score) AS score"
    " WHERE " + RETURNABLE + " WITH node ORDER BY score DESC, node.id"
    " RETURN collect(node) AS lexical"
    "}"
    " CALL () {"
    " UNWIND $vectorIndexes AS index"
    " CALL (index) {"
    "  CALL db.index.vector.queryNodes(index, $k, $vector) YIELD node, score"
    "  WITH node, score, " + RETURNABLE + " AS returnable"
    "  RETURN count(*) AS read,"
    "   collect(CASE WHEN returnable THEN {node: node, score: score} END) AS first"
    " }"
    " WITH index, first, read = $k AND size(first) < $limit AND $capK > $k AS again"
    " CALL (index, again) {"
    "  WITH index WHERE again"
    "  CALL db.index.vector.queryNodes(index, $capK, $vector) YIELD node, score"
    "  WITH node, score WHERE "
    + RETURNABLE
    + "  RETURN collect({node: node, score: score}) AS atCap"
    " }"
    " UNWIND CASE WHEN again THEN atCap ELSE first END AS hit"
    " WITH hit.node AS node, max(hit.score) AS score"
    " WITH node ORDER BY score DESC, node.id"
    " RETURN collect(node) AS semantic"
    "}"
    " CALL (lexical, semantic) {"
    " UNWIND range(1, size(lexical)) AS rank"
    " RETURN lexical[rank - 1] AS node, rank AS lexicalRank, null AS semanticRank"
    " UNION ALL"
    " UNWIND range(1, size(semantic)) AS rank"
    " RETURN semantic[rank - 1] AS node, null AS lexicalRank, rank AS semanticRank"
    "}"
    " WITH node, min(lexicalRank) AS lexicalRank, min(semanticRank) AS semanticRank"
    " WITH node, lexicalRank, semanticRank,"
    " coalesce(1.0 / ($rrfK + lexicalRank), 0.0) + coalesce(1.0 / ($rrfK + semanticRank), 0.0)"
    "  AS score"
    " ORDER BY score DESC, node.id LIMIT $limit"
    " CALL (node) {"
    " MATCH (node)-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
    " WHERE " + IN_SCOPE + " AND c.version = d.currentVersion"
    "  AND (c.jobId IS NULL OR EXISTS { MATCH (job:Job {id: c.jobId})"
    "   WHERE job.status = 'COMMITTED' })"
    " WITH c, d ORDER BY d.id, c.position, c.id LIMIT $evidenceK"
    " RETURN collect({id: c.id, text: c.text, title: d.title}) AS evidence"
    "}"
    " RETURN node.id AS id, node.name AS name,"
    " [label IN labels(node) WHERE NOT label IN $graphOwnedLabels] AS labels,"
    " score, lexicalRank, semanticRank, size(evidence) > 0 AS supported,"
    " evidence[..$supportLimit] AS evidence"
    " ORDER BY score DESC, id"
)

# The labels contract §1 says are the graph's own, never entity labels.
GRAPH_OWNED_LABELS = ["Entity", "Chunk", "Document", "Job", "Community", "ResolvedEntity"]

# FULLTEXT and VECTOR index names of every entity label with both ONLINE (contract §1, §3).
INDEXES: LiteralString = (
    "SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties"
    " WHERE type IN ['FULLTEXT', 'VECTOR'] AND size(labelsOrTypes) = 1"
    " RETURN name, type, state, labelsOrTypes[0] AS label, properties"
)

_WORDS = re.compile(r"[^\W_]+")  # contract §3: Unicode letters and digits; `\w` has `_` too


_POSSESSIVE = re.compile(r"(?<=[^\W_])['’`]s(?![^\W_])", re.IGNORECASE)


def words_of(query: str) -> list[str]:
    """The content words: no possessive 's, no function word, nothing of one character."""
    words = _WORDS.findall(_POSSESSIVE.sub("", query).lower())
    return [word for word in words if len(word) > 1 and word not in STOP_WORDS]


@dataclass(frozen=True)
class Indexes:
    fulltext: list[str]
    vector: list[str]


async def read_indexes(driver: neo4j.AsyncDriver) -> Indexes:
    records, _, _ = await driver.execute_query(INDEXES, routing_=neo4j.RoutingControl.READ)
    vector = {
        r["label"]: r["name"]
        for r in records
        if r["type"] == "VECTOR" and r["properties"] == ["embedding"]
    }
    fulltext = {
        r["label"]: r["name"]
        for r in records
        if r["type"] == "FULLTEXT" and "name" in r["properties"]
    }
    labels = sorted(label for label in vector if label not in GRAPH_OWNED_LABELS)
    states = {r["name"]: r["state"] for r in records}
    for label in labels:
        for name in (fulltext.get(label), vector[label]):
            if name is None or states[name] != "ONLINE":
                raise RuntimeError(f"label {label}: index {name} is not ONLINE")
    return Indexes([fulltext[label] for label in labels], [vector[label] for label in labels])


@dataclass(frozen=True)
class Timed:
    rows: list[dict[str, Any]]
    server_ms: float  # what Neo4j reports: planning + execution + streaming


class HandwrittenSearch:
    """Embeds the query (the service's `hash` embedder) and runs SEARCH, nothing else."""

    def __init__(self, driver: neo4j.AsyncDriver, indexes: Indexes, dimension: int) -> None:
        self.driver = driver
        self.indexes = indexes
        self.embedder = HashEmbedder(dimension)

    def parameters(
        self,
        query: str,
        limit: int = 10,
        support_limit: int = 3,
        workspaces: Sequence[str] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        [vector] = self.embedder.embed([query])
        words = words_of(query)
        distinct = sorted(set(words))
        return {
            "fulltextIndexes": self.indexes.fulltext if words else [],
            "vectorIndexes": self.indexes.vector,
            "words": " ".join(words),
            "distinctWords": distinct,
            "required": math.ceil(len(distinct) / 2),
            "vector": vector,
            "k": min(2 * limit, 1000),
            "capK": 1000,
            "limit": limit,
            "supportLimit": support_limit,
            "evidenceK": max(1, support_limit),  # one passage tells SUPPORTED
            "rrfK": 60,
            "workspaces": None if workspaces is None else list(workspaces),
            "documentIds": None if document_ids is None else list(document_ids),
            "graphOwnedLabels": GRAPH_OWNED_LABELS,
        }

    async def run(self, parameters: dict[str, Any], statement: LiteralString = SEARCH) -> Timed:
        async with self.driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
            result = await session.run(statement, parameters)
            rows = [record.data() async for record in result]
            summary = await result.consume()
        server = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
        return Timed(rows, float(server))

    async def search(self, query: str, **options: Any) -> Timed:
        return await self.run(self.parameters(query, **options))
