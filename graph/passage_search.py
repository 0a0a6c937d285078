"""Passage search in one statement (contract §4): the entity search's query rules over
visible passages, the FULLTEXT index on `Chunk.text` and the VECTOR index on `Chunk.embedding`
(when present), RRF in HYBRID mode.

Candidates per list: `min(2·limit, 1000)`, lexical ones from the caller's workspaces and unowned
passages only when the index covers the owner key (graph/fulltext_query.py); only visible
passages are ranked; the semantic read
is repeated at the cap when it came back full with fewer than `limit` visible passages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from contract.scope import Scope
from graph.catalog_cache import SearchResult, marked, read_marked
from graph.driver import Graph
from graph.fulltext_query import fulltext_query, scope_keys
from graph.lookups import PASSAGE_MAP, scoped
from graph.records import PassageRecord
from graph.search_ranking import RANK_AND_FUSE
from graph.served_statements import served
from graph.visibility import document_in_scope, document_versions, passage_current_in


# Candidates of one index read: `{node, score, d}`, with `d` the passage's document when it
# is in scope, else null (such a candidate is never visible but still counts toward a read
# that "came back full").
def _read(call: LiteralString, into: LiteralString) -> LiteralString:
    return (
        call
        + " OPTIONAL MATCH (d:Document)-[:HAS_PART]->(node) WHERE "
        + document_in_scope("d")
        + " RETURN collect({node: node, score: score, d: d}) AS "
        + into
    )


def _versions(reads: LiteralString, into: LiteralString, known: LiteralString) -> LiteralString:
    """The versions of the documents of the candidates in `reads` (graph/visibility.py)."""
    return (
        "CALL (*) { UNWIND "
        + reads
        + " AS hit WITH hit.d AS d WHERE d IS NOT NULL"
        + document_versions("d", into, known)
        + " }"
    )


def _visible(hit: LiteralString, versions: LiteralString) -> LiteralString:
    return f"({hit}.d IS NOT NULL AND {passage_current_in(hit + '.node', hit + '.d', versions)})"


def _ranked(read: LiteralString, into: LiteralString) -> LiteralString:
    """The visible candidates of `read`, best first (ties by id), as `{node, score}`."""
    return (
        "CALL (" + read + ", versions) { UNWIND " + read + " AS hit"
        " WITH hit WHERE "
        + _visible("hit", "versions")
        + " WITH hit.node AS node, hit.score AS score ORDER BY score DESC, node.id"
        " RETURN collect({node: node, score: score}) AS " + into + " }"
    )


# The candidates are read first; then each document they belong to has its version read once
# (the documents of a read at the cap are added to those already read), and only then are the
# candidates' jobs read (graph/visibility.py says why). It also reads the index catalog's
# marker (graph/catalog_cache.py), in the same round trip.
SEARCH_PASSAGES: LiteralString = marked(
    "CALL () {"
    " UNWIND $lexicalIndexes AS index"
    + _read(
        " CALL db.index.fulltext.queryNodes(index, $lexicalQuery, {limit: $lexicalK})"
        " YIELD node, score",
        "lexicalRead",
    )
    + " }"
    " CALL () {"
    " UNWIND $semanticIndexes AS index"
    + _read(
        " CALL db.index.vector.queryNodes(index, $semanticK, $vector) YIELD node, score"
        " WITH node, 2 * score - 1 AS score",
        "firstRead",
    )
    + " }"
    " WITH lexicalRead, firstRead "
    + _versions("lexicalRead + firstRead", "firstVersions", "[]")
    + " WITH lexicalRead, firstRead, firstVersions,"
    "  size(firstRead) = $semanticK AND $capK > $semanticK"
    "  AND size([hit IN firstRead WHERE " + _visible("hit", "firstVersions") + "]) < $limit"
    "  AS rereadAtCap"
    " CALL (rereadAtCap) {"
    " WITH rereadAtCap WHERE rereadAtCap"
    " UNWIND $semanticIndexes AS index"
    + _read(
        " CALL db.index.vector.queryNodes(index, $capK, $vector) YIELD node, score"
        " WITH node, 2 * score - 1 AS score",
        "capRead",
    )
    + " }"
    " WITH lexicalRead, CASE WHEN rereadAtCap THEN capRead ELSE firstRead END AS semanticRead,"
    "  firstVersions, capRead "
    + _versions("capRead", "capVersions", "firstVersions")
    + " WITH lexicalRead, semanticRead, firstVersions + capVersions AS versions "
    + _ranked("lexicalRead", "lexical")
    + " "
    + _ranked("semanticRead", "semantic")
    + RANK_AND_FUSE
    + " MATCH (d:Document)-[:HAS_PART]->(c) WHERE c = node"
    " RETURN " + PASSAGE_MAP + " AS passage, score, lexicalRank, semanticRank, position"
    " ORDER BY position"
)
served(SEARCH_PASSAGES)


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
    fulltext_owner_keyed: bool = False,
    limit: int,
    rrf_k: int,
    candidates: int,
    cap: int,
) -> SearchResult[PassageHitRecord]:
    """`fulltext_index`/`vector_index` are None for a side that does not run. `IndexGone`
    when one of them no longer exists."""
    found = await read_marked(
        graph,
        SEARCH_PASSAGES,
        scoped(
            scope,
            lexicalIndexes=[fulltext_index] if fulltext_index else [],
            semanticIndexes=[vector_index] if vector_index and vector is not None else [],
            lexicalQuery=fulltext_query(
                lexical_query, ("text",), scope_keys(scope) if fulltext_owner_keyed else None
            )
            if fulltext_index
            else "",
            vector=list(vector) if vector is not None else [],
            lexicalK=candidates,
            semanticK=candidates,
            capK=cap,
            limit=limit,
            rrfK=rrf_k,
            mode=mode,
        ),
    )
    return SearchResult([PassageHitRecord.from_record(row) for row in found.rows], found.generation)
