"""Ranking and fusion in Cypher, shared by entity and passage search (contract §3, §4).

Input: `lexical` and `semantic`, lists of `{node, score}` (a lexical entry may also say
`exact: true`, the query equals its name) already filtered to what the caller may see and in
their list's order (retrieval/lexical_order.py for the entities' lexical list). Output: one
row per winning `node`, its `position` (0-based) among the winners, `lexicalRank`,
`semanticRank` (1-based positions in each list, null when absent) and `score`: RRF
`Σ 1/($rrfK + rank)` in HYBRID, the list's own score in LEXICAL and SEMANTIC. LEXICAL and
SEMANTIC keep their list's order; HYBRID puts exact names first, then follows the RRF score
(RRF alone does not keep an exact name first: retrieval/lexical_order.py); ties by id.
`retrieval/fusion.py` holds the RRF score in Python, for the tests.
"""

from __future__ import annotations

from typing import LiteralString

RANK_AND_FUSE: LiteralString = (
    " CALL (lexical, semantic) {"
    "  UNWIND range(1, size(lexical)) AS rank"
    "  RETURN lexical[rank - 1].node AS node, rank AS lexicalRank, null AS semanticRank,"
    "   lexical[rank - 1].score AS lexicalScore, null AS semanticScore,"
    "   coalesce(lexical[rank - 1].exact, false) AS exact"
    "  UNION ALL"
    "  UNWIND range(1, size(semantic)) AS rank"
    "  RETURN semantic[rank - 1].node AS node, null AS lexicalRank, rank AS semanticRank,"
    "   null AS lexicalScore, semantic[rank - 1].score AS semanticScore, false AS exact"
    " }"
    " WITH node, min(lexicalRank) AS lexicalRank, min(semanticRank) AS semanticRank,"
    "  max(lexicalScore) AS lexicalScore, max(semanticScore) AS semanticScore,"
    "  any(isExact IN collect(exact) WHERE isExact) AS exact"
    " WITH node, lexicalRank, semanticRank, exact, CASE $mode"
    "  WHEN 'LEXICAL' THEN lexicalScore"
    "  WHEN 'SEMANTIC' THEN semanticScore"
    "  ELSE coalesce(1.0 / ($rrfK + lexicalRank), 0.0)"
    "   + coalesce(1.0 / ($rrfK + semanticRank), 0.0)"
    "  END AS score"
    " ORDER BY CASE WHEN $mode = 'HYBRID' AND exact THEN 0 ELSE 1 END,"
    "  CASE $mode WHEN 'LEXICAL' THEN lexicalRank WHEN 'SEMANTIC' THEN semanticRank ELSE 0 END,"
    "  score DESC, node.id"
    " LIMIT $limit"
    " WITH collect({node: node, lexicalRank: lexicalRank, semanticRank: semanticRank,"
    "  score: score}) AS winners"
    " UNWIND range(0, size(winners) - 1) AS position"
    " WITH winners[position].node AS node, winners[position].lexicalRank AS lexicalRank,"
    "  winners[position].semanticRank AS semanticRank, winners[position].score AS score,"
    "  position"
)
