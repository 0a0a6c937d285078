"""Reciprocal rank fusion (seed step 4, contract §3): "In hybrid mode the call fuses the two ranked
lists with reciprocal rank fusion and the constant 60 (RETRIEVAL_RRF_K)."

score = Σ 1/(k + rank) over the lists that hold the entity; ranks are 1-based positions among
the returnable entities of each list; ties break by id. The search statements fuse in Cypher
(graph/search_ranking.py) so that only the winning hits leave the database; `rrf_score` is the
reference the search tests check their scores against.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_RRF_K = 60


def rrf_score(ranks: Sequence[int | None], k: int = DEFAULT_RRF_K) -> float:
    """Σ 1/(k + rank) over the ranks that are present.

    >>> round(rrf_score([1, None], 60), 6), round(rrf_score([1, 2], 60), 6)
    (0.016393, 0.032522)
    """
    return sum(1.0 / (k + rank) for rank in ranks if rank is not None)
