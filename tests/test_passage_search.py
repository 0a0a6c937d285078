"""Passage search on the real Neo4j (contract §4): the entity search's query rules over visible
passages."""

from __future__ import annotations

from typing import Any

import pytest

from graph.driver import Graph
from graph.graph_schema import apply_schema
from retrieval.fusion import rrf_score
from tests.conftest import TEST_DIMENSION, Client, without_request_ids
from tests.support.graph_builder import GraphBuilder, unit_vector

SEARCH = """
query($query: String!, $mode: SearchMode! = HYBRID, $limit: Int! = 10, $scope: ScopeInput) {
  searchPassages(query: $query, mode: $mode, limit: $limit, scope: $scope) {
    passage { id text document { workspace } }
    score lexicalRank semanticRank
  }
}
"""


def axis(index: int) -> list[float]:
    return unit_vector(TEST_DIMENSION, index)


async def search(
    client: Client, query: str, vector: list[float] | None = None, **variables: Any
) -> list[dict[str, Any]]:
    client.embedder.script(query, vector or axis(0))
    body = await client.execute(SEARCH, {"query": query, **variables})
    assert "errors" not in body, body
    hits: list[dict[str, Any]] = body["data"]["searchPassages"]
    return hits


async def test_only_visible_passages_are_found(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    old = await builder.version("acme", ["harbor old text"])
    await builder.version("acme", ["harbor new text"], document_id=old.document_id)
    await builder.version("acme", ["harbor running"], commit=False)
    await builder.version("acme", ["harbor failed"], fail=True)
    await builder.version("globex", ["harbor elsewhere"])
    await apply_schema(graph, TEST_DIMENSION)
    hits = await search(client, "harbor", mode="LEXICAL", scope={"workspaces": ["acme"]})
    assert [hit["passage"]["text"] for hit in hits] == ["harbor new text"]


async def test_lucene_syntax_has_no_effect(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["quay side", "quay", "side"])
    await apply_schema(graph, TEST_DIMENSION)
    plain = await search(client, "quay side", mode="LEXICAL")
    assert await search(client, '"quay" AND side*~', mode="LEXICAL") == plain


async def test_hybrid_fuses_with_reciprocal_ranks(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "acme",
        ["pier one", "pier two", "boat"],
        passage_vectors={0: axis(3), 1: axis(0), 2: [1.0, 0.6, 0, 0, 0, 0, 0, 0]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    hits = await search(client, "pier", axis(0))
    assert {hit["passage"]["text"] for hit in hits} == {"pier one", "pier two", "boat"}
    for hit in hits:
        assert hit["score"] == pytest.approx(rrf_score([hit["lexicalRank"], hit["semanticRank"]]))
    assert hits[0]["passage"]["text"] == "pier two"  # first in both lists


async def test_semantic_needs_the_vector_index_and_hybrid_runs_without_it(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["dock"])
    await apply_schema(graph, TEST_DIMENSION)
    await graph.write("DROP INDEX chunk_embedding_vector", {})
    assert [hit["passage"]["text"] for hit in await search(client, "dock")] == ["dock"]
    client.embedder.script("dock", axis(0))
    body = await client.execute(SEARCH, {"query": "dock", "mode": "SEMANTIC"})
    assert without_request_ids(body["errors"][0]["extensions"]) == {
        "code": "INDEX_NOT_READY",
        "label": "Chunk",
        "index": "VECTOR",
        "state": "MISSING",
    }


async def test_the_semantic_read_is_repeated_at_the_cap(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "globex", [f"near {i}" for i in range(10)], passage_vectors={i: axis(0) for i in range(10)}
    )
    await builder.version("acme", ["far away"], passage_vectors={0: axis(4)})
    await apply_schema(graph, TEST_DIMENSION)
    hits = await search(
        client, "zzz", axis(0), mode="SEMANTIC", limit=1, scope={"workspaces": ["acme"]}
    )
    assert [hit["passage"]["text"] for hit in hits] == ["far away"]


async def test_passage_search_costs_one_statement_whatever_the_limit(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", [f"wharf {i}" for i in range(40)])
    await apply_schema(graph, TEST_DIMENSION)
    counts = {}
    for limit in (3, 3, 3, 30):
        hits = await search(client, "wharf", limit=limit)
        assert len(hits) == limit
        counts[limit] = len(client.statements)
    # Once the index catalog is kept (tests/test_index_catalog_freshness.py).
    assert counts == {3: 1, 30: 1}, client.statements
