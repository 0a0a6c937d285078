"""The service behind a real Apollo federation gateway (`@apollo/gateway`, Node), composed with
a second subgraph (`tests/node/popularity.graphql`) that extends `Entity` by `id`.

Every request the gateway sends to a subgraph is logged (`tests/node/gateway.mjs`), and the
served process lists the statements it sent to Neo4j (`tests/support/served_app.py`), so each test
states how many `_entities` fetches and how many database reads a gateway query costs. The
counts land in `test-output/gateway-*.json` too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph import lookups
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY
from tests.support.serving import Served, served_node, served_service

OUTPUT = REPOSITORY / "test-output"
LOOKUP_NAMES = {
    getattr(lookups, name): name
    for name in ("ENTITIES_BY_ID", "PASSAGES_BY_ID", "DOCUMENTS_BY_ID", "EVIDENCE_BY_ENTITY_ID")
}


def popularity(entity_id: str) -> int:
    """As `tests/node/popularity-subgraph.mjs` computes it."""
    return sum(ord(ch) for ch in entity_id) % 1000


@dataclass
class Federation:
    service: Served
    gateway: Served
    fetch_log: Path

    def query(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """Send `query` through the gateway; return its body, the subgraph fetches and the
        statements evidencegraph ran for it."""
        self.fetch_log.write_text("")
        httpx.delete(self.service.url + "/_test/statements").raise_for_status()
        response = httpx.post(
            self.gateway.url + "/",
            json={"query": query, "variables": variables},
            headers={"authorization": "Bearer gateway-test"},
            timeout=60,
        )
        statements = httpx.get(self.service.url + "/_test/statements").json()["statements"]
        fetches = [json.loads(line) for line in self.fetch_log.read_text().splitlines()]
        return {
            "status": response.status_code,
            "body": response.json(),
            "fetches": fetches,
            "statements": [
                {"lookup": LOOKUP_NAMES.get(s["query"], s["query"][:60]), "keys": s["keys"]}
                for s in statements
            ],
        }


@pytest.fixture(scope="module")
def federation(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    logs = tmp_path_factory.mktemp("federation")
    fetch_log = logs / "fetches.jsonl"
    fetch_log.touch()
    with (
        served_service(neo4j_uri, logs) as service,
        served_node("popularity-subgraph.mjs", {}, logs) as popularity_subgraph,
        served_node(
            "gateway.mjs",
            {
                "EVIDENCEGRAPH_URL": service.url + "/graphql",
                "POPULARITY_URL": popularity_subgraph.url + "/",
                "FETCH_LOG": str(fetch_log),
            },
            logs,
        ) as gateway,
    ):
        yield Federation(service, gateway, fetch_log)


def entities_fetches(result: dict[str, Any], service: str) -> list[dict[str, Any]]:
    return [
        fetch
        for fetch in result["fetches"]
        if fetch["service"] == service and fetch["representations"] is not None
    ]


def save(name: str, result: dict[str, Any]) -> None:
    OUTPUT.mkdir(exist_ok=True)
    summary = {key: value for key, value in result.items() if key != "body"}
    (OUTPUT / f"gateway-{name}.json").write_text(json.dumps(summary, indent=2))


async def hundred_entities(builder: GraphBuilder, graph: Graph) -> dict[str, list[str]]:
    names = [f"Gamma {i:03d}" for i in range(100)]
    documents, passages = [], []
    for start in range(0, 100, 10):
        batch = names[start : start + 10]
        version = await builder.version(
            "acme",
            [f"{name} appears in report {start // 10}." for name in batch],
            title=f"Report {start // 10}",
            mentions={name: [i] for i, name in enumerate(batch)},
        )
        documents.append(version.document_id)
        passages.extend(version.passage_ids)
    await apply_schema(graph, TEST_DIMENSION)
    return {
        "entities": [builder.entity_id(name) for name in names],
        "passages": passages,
        "documents": documents,
    }


SEARCH_ACROSS_SUBGRAPHS = """
query SearchAcrossSubgraphs($query: String!, $limit: Int!) {
  searchEntities(query: $query, limit: $limit) {
    entity { id name popularity }
    evidence { text }
  }
}
"""


async def test_search_hits_get_the_other_subgraphs_field_in_one_fetch(
    federation: Federation, builder: GraphBuilder, graph: Graph
) -> None:
    await hundred_entities(builder, graph)
    # The served process outlives each test's graph: its first searches after the indexes
    # changed read the index catalog again (contract §3); count a search in steady state.
    for _ in range(2):
        federation.query(SEARCH_ACROSS_SUBGRAPHS, {"query": "gamma", "limit": 1})
    result = federation.query(SEARCH_ACROSS_SUBGRAPHS, {"query": "gamma", "limit": 100})
    save("search", result)
    assert result["status"] == 200 and "errors" not in result["body"], result["body"]
    hits = result["body"]["data"]["searchEntities"]
    assert len(hits) == 100
    for hit in hits:
        assert hit["entity"]["popularity"] == popularity(hit["entity"]["id"])
        assert hit["evidence"][0]["text"].startswith(hit["entity"]["name"])
    # evidencegraph: the search, once; popularity: one `_entities` fetch for all 100.
    assert [f["service"] for f in result["fetches"]] == ["evidencegraph", "popularity"]
    assert entities_fetches(result, "evidencegraph") == []
    assert [f["representations"] for f in entities_fetches(result, "popularity")] == [100]
    # One search statement (it carries the evidence and the index catalog's marker).
    assert len(result["statements"]) == 1, result["statements"]


REFERENCES_INTO_EVIDENCEGRAPH = """
query References($entityIds: [ID!]!, $passageIds: [ID!]!, $documentIds: [ID!]!) {
  popularEntities(ids: $entityIds) {
    id popularity name labels
    evidence { text document { title } }
  }
  featuredPassages(ids: $passageIds) { id text position }
  featuredDocuments(ids: $documentIds) { id title }
}
"""


async def test_references_from_the_other_subgraph_cost_one_read_per_type(
    federation: Federation, builder: GraphBuilder, graph: Graph
) -> None:
    ids = await hundred_entities(builder, graph)
    counts = {}
    for size in (10, 100):
        variables = {
            "entityIds": ids["entities"][:size],
            "passageIds": ids["passages"][:size],
            "documentIds": ids["documents"],
        }
        result = federation.query(REFERENCES_INTO_EVIDENCEGRAPH, variables)
        save(f"references-{size}", result)
        assert result["status"] == 200 and "errors" not in result["body"], result["body"]
        data = result["body"]["data"]
        assert [e["id"] for e in data["popularEntities"]] == variables["entityIds"]
        assert all(e["evidence"][0]["document"]["title"] for e in data["popularEntities"])
        assert [p["id"] for p in data["featuredPassages"]] == variables["passageIds"]
        assert [d["title"] for d in data["featuredDocuments"]] == [f"Report {i}" for i in range(10)]
        # The gateway sends one `_entities` fetch per type, each with all its references.
        fetches = entities_fetches(result, "evidencegraph")
        assert sorted((f["typenames"], f["representations"]) for f in fetches) == [
            (["Document"], 10),
            (["Entity"], size),
            (["Passage"], size),
        ]
        # One read per type and fetch: entities, then their evidence passages; passages;
        # documents.
        lookups_run = sorted(s["lookup"] for s in result["statements"])
        assert lookups_run == [
            "DOCUMENTS_BY_ID",
            "ENTITIES_BY_ID",
            "EVIDENCE_BY_ENTITY_ID",
            "PASSAGES_BY_ID",
        ], result["statements"]
        counts[size] = {"entities_fetches": len(fetches), "statements": len(lookups_run)}
    # Ten times the references, the same fetches and the same reads.
    assert counts[10] == counts[100], counts
