"""Ranking and fusion in Cypher, shared by entity and passage search (contract §3, §4).

Input: `lexical` and `semantic`, lists of `{node, score}` already filtered to what the caller
may see and sorted best first (ties by id). Output: one row per winning `node` with
`lexicalRank`, `semanticRank` (1-based positions in each list, null when absent) and `score`:
RRF `Σ 1/($rrfK + rank)` in HYBRID, the list's own score in LEXICAL and SEMANTIC; best
`$limit` rows, ties by id. `retrieval/fusion.py` holds the RRF score in Python, for the tests.
"""

from __future__ import annotations

from typing import LiteralString

RANK_AND_FUSE: LiteralString = (
    " CALL (lexical, semantic) {"
    "  UNWIND range(1, size(lexical)) AS rank"
    "  RETURN lexical[rank - 1].node AS node, rank AS lexicalRank, null AS semanticRank,"
    "   lexical[rank - 1].score AS lexicalScore, null AS semanticScore"
    "  UNION ALL"
    "  UNWIND range(1, size(semantic)) AS rank"
    "  RETURN semantic[rank - 1].node AS node, null AS lexicalRank, rank AS semanticRank,"
    "   null AS lexicalScore, semantic[rank - 1].score AS semanticScore"
    " }"
    " WITH node, min(lexicalRank) AS lexicalRank, min(semanticRank) AS semanticRank,"
    "  max(lexicalScore) AS lexicalScore, max(semanticScore) AS semanticScore"
    " WITH node, lexicalRank, semanticRank, CASE $mode"
    "  WHEN 'LEXICAL' THEN lexicalScore"
    "  WHEN 'SEMANTIC' THEN semanticScore"
    "  ELSE coalesce(1.0 / ($rrfK + lexicalRank), 0.0)"
    "   + coalesce(1.0 / ($rrfK + semanticRank), 0.0)"
    "  END AS score"
    " ORDER BY score DESC, node.id"
    " LIMIT $limit"
)
