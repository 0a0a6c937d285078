"""An external vector store (Qdrant, embedded): semantic reads come from it, capped at its
`max_results`; lexical reads still use the graph's FULLTEXT index (seed steps 3–4)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION, Client
from tests.support.graph_builder import GraphBuilder, unit_vector
from vectorstores.qdrant import QdrantVectorStore
from vectorstores.sync import sync_entity_vectors

SEARCH = """
query($query: String!, $mode: SearchMode!, $limit: Int!, $scope: ScopeInput) {
  searchEntities(query: $query, mode: $mode, limit: $limit, scope: $scope) {
    entity { name } lexicalRank semanticRank
  }
}
"""


def axis(index: int, weight: float = 1.0) -> list[float]:
    return unit_vector(TEST_DIMENSION, index, weight)


@pytest.fixture
async def qdrant() -> AsyncIterator[QdrantVectorStore]:
    store = QdrantVectorStore(":memory:", max_results=4, dimension=TEST_DIMENSION)
    yield store
    await store.close()


async def names(client: Client, query: str, vector: list[float], **variables: object) -> list[str]:
    client.embedder.script(query, vector)
    body = await client.execute(SEARCH, {"query": query, **variables})
    assert "errors" not in body, body
    return [hit["entity"]["name"] for hit in body["data"]["searchEntities"]]


async def test_semantic_reads_come_from_the_store_capped_at_max_results(
    client: Client, builder: GraphBuilder, graph: Graph, qdrant: QdrantVectorStore
) -> None:
    people = [f"Person {i}" for i in range(8)]
    await builder.version(
        "acme",
        [f"{p}." for p in people],
        mentions={p: [i] for i, p in enumerate(people)},
        vectors={p: axis(0, 1 + i / 10) for i, p in enumerate(people)},
    )
    await apply_schema(graph, TEST_DIMENSION)
    assert await sync_entity_vectors(graph, qdrant, report=lambda _: None) == {"Person": 8}
    client.services.vector_store = qdrant
    found = await names(client, "zzz", axis(0), mode="SEMANTIC", limit=10)
    assert len(found) == 4  # min(2·10, 1000, max_results 4)
    assert client.search_parameters["semanticK"] == 4


async def test_the_store_read_is_repeated_at_its_cap_when_too_few_are_returnable(
    client: Client, builder: GraphBuilder, graph: Graph, qdrant: QdrantVectorStore
) -> None:
    # max_results 4, limit 1: the first read is 2 (both hidden), the read at the cap is 4.
    await builder.version(
        "globex",
        ["n0.", "n1."],
        mentions={"Near 0": [0], "Near 1": [1]},
        vectors={"Near 0": axis(0, 1.0), "Near 1": axis(0, 1.01)},
    )
    await builder.version("acme", ["far."], mentions={"Far": [0]}, vectors={"Far": axis(3)})
    await apply_schema(graph, TEST_DIMENSION)
    await sync_entity_vectors(graph, qdrant, report=lambda _: None)
    client.services.vector_store = qdrant
    scope = {"workspaces": ["acme"]}
    assert await names(client, "zzz", axis(0), mode="SEMANTIC", limit=1, scope=scope) == ["Far"]


async def test_lexical_reads_still_use_the_graph_fulltext_index(
    client: Client, builder: GraphBuilder, graph: Graph, qdrant: QdrantVectorStore
) -> None:
    await builder.version("acme", ["Quill."], mentions={"Quill": [0]}, vectors={"Quill": axis(2)})
    await apply_schema(graph, TEST_DIMENSION)
    client.services.vector_store = qdrant
    # The store is empty (never synced): semantic finds nothing, lexical still finds Quill.
    assert await names(client, "quill", axis(2), mode="SEMANTIC", limit=5) == []
    assert await names(client, "quill", axis(2), mode="LEXICAL", limit=5) == ["Quill"]
