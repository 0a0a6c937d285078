"""The order of the lexical list across labels (contract §3): "the lexical list merges every
searched label's lexical candidates, best match first: names the query covers more completely
(an exact name first), then index score (BM25 scores of different labels' indexes are not
comparable, so score alone must not order them) [...] An entity carrying several searched
labels appears once per list, at its best place. [...] Ties break by entity id."

    1. exact name    the query equals the name (retrieval/name_match.py)
    2. completeness  the Jaccard index of the query's and the name's content words
    3. score         the Lucene score of the label's index that read it
    4. id            ascending

In HYBRID, RRF alone does not keep an exact name first (lexical rank 1 and semantic rank 9
sum to less than ranks 2 and 1), so the fused order puts exact names first and then follows
the RRF score (`hybrid_order`). The search statement does both in Cypher
(graph/entity_search.py, graph/search_ranking.py); these functions are the reference its
tests check.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LexicalCandidate:
    """One label's lexical read of one entity."""

    id: str
    exact: bool
    completeness: float
    score: float


def lexical_key(candidate: LexicalCandidate) -> tuple[bool, float, float]:
    """What makes one candidate better than another (greater is better), before the id."""
    return (candidate.exact, candidate.completeness, candidate.score)


def lexical_order(candidates: Iterable[LexicalCandidate]) -> list[LexicalCandidate]:
    """The lexical list: each entity once, at its best place, best first, ties by id.

    >>> order = lexical_order([
    ...     LexicalCandidate("b", False, 0.5, 9.0),  # SCROOGE'S TRANSFORMATION (Event)
    ...     LexicalCandidate("c", True, 1.0, 2.0),  # SCROOGE (Person)
    ...     LexicalCandidate("a", False, 0.5, 9.0),
    ...     LexicalCandidate("c", True, 1.0, 3.0),  # SCROOGE again, from another label
    ... ])
    >>> [(c.id, c.score) for c in order]
    [('c', 3.0), ('a', 9.0), ('b', 9.0)]
    """
    best: dict[str, LexicalCandidate] = {}
    for candidate in candidates:
        kept = best.get(candidate.id)
        if kept is None or lexical_key(candidate) > lexical_key(kept):
            best[candidate.id] = candidate
    by_id = sorted(best.values(), key=lambda c: c.id)
    return sorted(by_id, key=lexical_key, reverse=True)  # stable: ties stay by id


@dataclass(frozen=True, slots=True)
class FusedHit:
    id: str
    exact: bool  # the query equals its name (false when it is not in the lexical list)
    score: float  # RRF


def hybrid_order(hits: Sequence[FusedHit]) -> list[FusedHit]:
    """HYBRID's order: exact names first, then RRF score, ties by id.

    >>> [h.id for h in hybrid_order([FusedHit("a", False, 0.0325), FusedHit("b", True, 0.0318)])]
    ['b', 'a']
    """
    return sorted(hits, key=lambda h: (not h.exact, -h.score, h.id))
