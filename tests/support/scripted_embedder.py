"""A query embedder for search tests: each test says which vector a query embeds to, so the
semantic ranking it asserts is exact. (The real embedders are tested in test_embedding_*.)"""

from __future__ import annotations

from collections.abc import Hashable, Sequence


class ScriptedQueryEmbedder:
    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.vectors: dict[str, tuple[float, ...]] = {}
        self.calls: list[str] = []

    def script(self, query: str, vector: Sequence[float]) -> None:
        assert len(vector) == self.dimension
        self.vectors[query] = tuple(vector)

    async def embed_query(self, text: str, partition: Hashable = None) -> tuple[float, ...]:
        self.calls.append(text)
        if text not in self.vectors:
            raise AssertionError(f"test did not script a vector for query {text!r}")
        return self.vectors[text]
