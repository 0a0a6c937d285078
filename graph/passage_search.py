"""Passage search in one statement (contract §4): the entity search's query rules over
visible passages, the FULLTEXT index on `Chunk.text` and the VECTOR index on `Chunk.embedding`
(when present), RRF in HYBRID mode.

Candidates per list: `min(2·limit, 1000)`; only visible passages are ranked; the semantic read
is repeated at the cap when it came back full with fewer than `limit` visible passages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from contract.scope import Scope
from graph.driver import Graph
from graph.lookups import PASSAGE_MAP, scoped
from graph.records import PassageRecord
from graph.search_ranking import RANK_AND_FUSE
from graph.visibility import passage_visible

_VISIBLE_NODE: LiteralString = (
    "EXISTS { MATCH (candidateDoc:Document)-[:HAS_PART]->(node)"
    " WHERE " + passage_visible("node", "candidateDoc") + " }"
)

SEARCH_PASSAGES: LiteralString = (
    "CALL () {"
    " UNWIND $lexicalIndexes AS index"
    " CALL db.index.fulltext.queryNodes(index, $lexicalQuery, {limit: $lexicalK})"
    " YIELD node, score"
    " WITH node, score WHERE " + _VISIBLE_NODE + " WITH node, score ORDER BY score DESC, node.id"
    " RETURN collect({node: node, score: score}) AS lexical"
    " }"
    " CALL () {"
    " UNWIND $semanticIndexes AS index"
    " CALL (index) {"
    "  CALL db.index.vector.queryNodes(index, $semanticK, $vector) YIELD node, score"
    "  RETURN collect({node: node, score: 2 * score - 1, visible: " + _VISIBLE_NODE + "})"
    "   AS firstRead"
    " }"
    " WITH index, firstRead,"
    "  size(firstRead) = $semanticK AND $capK > $semanticK"
    "  AND size([hit IN firstRead WHERE hit.visible]) < $limit AS rereadAtCap"
    " CALL (index, rereadAtCap) {"
    "  WITH index WHERE rereadAtCap"
    "  CALL db.index.vector.queryNodes(index, $capK, $vector) YIELD node, score"
    "  RETURN collect({node: node, score: 2 * score - 1, visible: " + _VISIBLE_NODE + "})"
    "   AS capRead"
    " }"
    " UNWIND CASE WHEN rereadAtCap THEN capRead ELSE firstRead END AS hit"
    " WITH hit WHERE hit.visible"
    " WITH hit.node AS node, hit.score AS score ORDER BY score DESC, node.id"
    " RETURN collect({node: node, score: score}) AS semantic"
    " }" + RANK_AND_FUSE + " MATCH (d:Document)-[:HAS_PART]->(c) WHERE c = node"
    " RETURN " + PASSAGE_MAP + " AS passage, score, lexicalRank, semanticRank"
    " ORDER BY position"
)


@dataclass(frozen=True, slots=True)
class PassageHitRecord:
    passage: PassageRecord
    score: float
    lexical_rank: int | None
    semantic_rank: int | None

    @classmethod
    def from_record(cls, row: Any) -> PassageHitRecord:
        return cls(
            passage=PassageRecord.from_map(row["passage"]),
            score=float(row["score"]),
            lexical_rank=row["lexicalRank"],
            semantic_rank=row["semanticRank"],
        )


async def search_passages(
    graph: Graph,
    scope: Scope,
    *,
    mode: str,
    fulltext_index: str | None,
    vector_index: str | None,
    lexical_query: str,
    vector: Sequence[float] | None,
    limit: int,
    rrf_k: int,
    candidates: int,
    cap: int,
) -> list[PassageHitRecord]:
    """`fulltext_index`/`vector_index` are None for a side that does not run."""
    rows = await graph.read(
        SEARCH_PASSAGES,
        scoped(
            scope,
            lexicalIndexes=[fulltext_index] if fulltext_index else [],
            semanticIndexes=[vector_index] if vector_index and vector is not None else [],
            lexicalQuery=lexical_query,
            vector=list(vector) if vector is not None else [],
            lexicalK=candidates,
            semanticK=candidates,
            capK=cap,
            limit=limit,
            rrfK=rrf_k,
            mode=mode,
        ),
    )
    return [PassageHitRecord.from_record(row) for row in rows]
