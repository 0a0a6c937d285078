"""Reciprocal rank fusion (seed step 4, SPEC §3): "In hybrid mode the call fuses the two ranked
lists with reciprocal rank fusion and the constant 60 (RETRIEVAL_RRF_K)."

score = Σ 1/(k + rank) over the lists that hold the entity; ranks are 1-based positions among
the returnable entities of each list; ties break by id. The search statement fuses in Cypher
(graph/entity_search.py) so that only the winning hits leave the database; this function is
the reference it is tested against, and fuses lists read outside the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_RRF_K = 60


@dataclass(frozen=True, slots=True)
class Fused:
    id: str
    score: float
    lexical_rank: int | None
    semantic_rank: int | None


def rrf_score(ranks: Sequence[int | None], k: int = DEFAULT_RRF_K) -> float:
    """Σ 1/(k + rank) over the ranks that are present.

    >>> round(rrf_score([1, None], 60), 6), round(rrf_score([1, 2], 60), 6)
    (0.016393, 0.032522)
    """
    return sum(1.0 / (k + rank) for rank in ranks if rank is not None)


def fuse(lexical: Sequence[str], semantic: Sequence[str], k: int = DEFAULT_RRF_K) -> list[Fused]:
    """Fuse two ranked lists of ids (best first, each id at most once), best first."""
    lexical_ranks = {entity_id: rank for rank, entity_id in enumerate(lexical, start=1)}
    semantic_ranks = {entity_id: rank for rank, entity_id in enumerate(semantic, start=1)}
    fused = [
        Fused(
            entity_id,
            rrf_score([lexical_ranks.get(entity_id), semantic_ranks.get(entity_id)], k),
            lexical_ranks.get(entity_id),
            semantic_ranks.get(entity_id),
        )
        for entity_id in dict.fromkeys([*lexical, *semantic])
    ]
    return sorted(fused, key=lambda hit: (-hit.score, hit.id))
