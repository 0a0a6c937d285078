"""The `VectorStore` interface.

The default store is the Neo4j VECTOR index of each label. Its reads happen inside the one
search statement (graph/entity_search.py), so it never runs a query of its own: `in_graph` is
True and `nearest` is not called. An external store (`in_graph` False) is read before the
statement, and its candidates are handed to it as parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Neighbour = tuple[str, float]  # (entity id, cosine similarity), best first


class VectorStore(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def in_graph(self) -> bool: ...

    @property
    def max_results(self) -> int | None:
        """The most results one read may return (None: no cap beyond the seed's 1000)."""
        ...

    async def nearest(self, label: str, vector: Sequence[float], k: int) -> list[Neighbour]:
        """The `k` nearest entity vectors of `label`, best first."""
        ...

    async def close(self) -> None: ...


class Neo4jVectorIndex:
    """The default: each label's VECTOR index on `embedding`, read inside the search statement."""

    name = "neo4j"
    in_graph = True
    max_results: int | None = None

    async def nearest(self, label: str, vector: Sequence[float], k: int) -> list[Neighbour]:
        raise RuntimeError("the Neo4j vector index is read inside the search statement")

    async def close(self) -> None:
        return None
