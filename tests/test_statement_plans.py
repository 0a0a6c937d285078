"""No read scans the whole database (contract §3, bench/notebook.md): every statement a
search, a walk or a lookup sends is planned from an index or a label, never from every node,
and reads mentions by seeking the order indexes (graph/mention_reads.py), never by scanning
one: a scan in the index's order gives the order a read wants and reads every entity's mentions.

A guard such as `WITH target WHERE $lexicalQuery = ''` does not stop the planner from putting
the read it guards first: such a branch once scanned every node on every search with words.
Each test plans (EXPLAIN, nothing runs) every statement one request sent, with its parameters,
as `Graph.read` sends it (its values in one map parameter, graph/plan_key.py).
"""

from __future__ import annotations

from typing import Any

import neo4j

from contract.page_cursor import evidence_cursor
from graph.graph_schema import apply_schema
from graph.plan_key import sent_parameters, sent_text
from tests.conftest import TEST_DIMENSION, Client
from tests.support.graph_builder import GraphBuilder, unit_vector

SEARCH = """
query($query: String!, $mode: SearchMode!) {
  searchEntities(query: $query, mode: $mode) {
    entity { id name } evidence { id text document { title } }
  }
}
"""
PASSAGES = """
query($query: String!, $mode: SearchMode!) {
  searchPassages(query: $query, mode: $mode) { passage { id text } }
}
"""
WALK = """
query($id: ID!) {
  walk(entityId: $id, depth: 2) { edges { type kind evidence { id } } truncatedBy }
}
"""
ENTITY = "query($id: ID!) { entity(id: $id) { id name evidence { id text } } }"


WHOLE_STORE_READS = (
    "AllNodesScan",
    "DirectedRelationshipIndexScan",
    "UndirectedRelationshipIndexScan",
)


def whole_store_reads(plan: list[str]) -> list[str]:
    return [operator for operator in plan if operator in WHOLE_STORE_READS]


def operators(plan: dict[str, Any]) -> list[str]:
    found = [str(plan.get("operatorType", "")).split("@")[0]]
    for child in plan.get("children", []):
        found.extend(operators(child))
    return found


async def plans_of(
    driver: neo4j.AsyncDriver, client: Client, query: str, variables: dict[str, Any]
) -> list[list[str]]:
    body = await client.execute(query, variables)
    assert "errors" not in body, body
    assert client.statements, "the request sent no statement"
    planned = []
    for statement, parameters in zip(client.statements, client.parameters, strict=True):
        _, summary, _ = await driver.execute_query(
            "EXPLAIN " + sent_text(statement),
            sent_parameters(parameters),
            routing_=neo4j.RoutingControl.READ,
        )
        assert summary.plan is not None
        planned.append(operators(summary.plan))
    return planned


async def small_graph(builder: GraphBuilder, graph: Any) -> None:
    await builder.version(
        "acme",
        ["Ada Lovelace wrote notes.", "The Who played Acme Hall."],
        mentions={"Ada Lovelace": [0], "The Who": [1], "Acme Hall": [1]},
        labels={"Ada Lovelace": ["Person"], "The Who": ["Organization"], "Acme Hall": ["Geo"]},
        relations=[("Ada Lovelace", "KNOWS", "The Who", [0]), ("The Who", "AT", "Acme Hall", None)],
        passage_vectors={0: unit_vector(TEST_DIMENSION, 0), 1: unit_vector(TEST_DIMENSION, 1)},
    )
    await apply_schema(graph, TEST_DIMENSION)


async def test_no_entity_search_scans_every_node(
    client: Client, builder: GraphBuilder, graph: Any, driver: neo4j.AsyncDriver
) -> None:
    await small_graph(builder, graph)
    for query in ("ada lovelace", "The Who"):  # content words; function words only
        for mode in ("HYBRID", "LEXICAL", "SEMANTIC"):
            client.embedder.script(query, unit_vector(TEST_DIMENSION, 0))
            for plan in await plans_of(driver, client, SEARCH, {"query": query, "mode": mode}):
                assert not whole_store_reads(plan), (query, mode, plan)


async def test_no_passage_search_scans_every_node(
    client: Client, builder: GraphBuilder, graph: Any, driver: neo4j.AsyncDriver
) -> None:
    await small_graph(builder, graph)
    for mode in ("HYBRID", "LEXICAL", "SEMANTIC"):
        client.embedder.script("acme hall", unit_vector(TEST_DIMENSION, 1))
        for plan in await plans_of(driver, client, PASSAGES, {"query": "acme hall", "mode": mode}):
            assert not whole_store_reads(plan), (mode, plan)


async def test_no_walk_or_lookup_scans_every_node(
    client: Client, builder: GraphBuilder, graph: Any, driver: neo4j.AsyncDriver
) -> None:
    await small_graph(builder, graph)
    ada = builder.entity_id("Ada Lovelace")
    for query in (WALK, ENTITY):
        for plan in await plans_of(driver, client, query, {"id": ada}):
            assert not whole_store_reads(plan), (query, plan)


PAGES = """
query($id: ID!, $scope: ScopeInput, $after: String) {
  walk(entityId: $id, depth: 2, scope: $scope) {
    nodes { evidencePage(first: 2, after: $after) { nodes { id mentions { id }
      document { passages(first: 2) { nodes { id } } } } } }
    edges { evidencePage(first: 2, after: $after) { nodes { id } } }
  }
}
"""


async def test_no_page_or_mentions_read_scans_every_node(
    client: Client, builder: GraphBuilder, graph: Any, driver: neo4j.AsyncDriver
) -> None:
    """The paged fields and `Passage.mentions`, first pages and pages after a cursor, in every
    shape of scope (graph/mention_reads.py)."""
    await small_graph(builder, graph)
    ada = builder.entity_id("Ada Lovelace")
    [row] = await graph.read(
        "MATCH (d:Document) RETURN d.id AS id, [(d)-[:HAS_PART]->(c) | c.id][0] AS passage", {}
    )
    cursor = evidence_cursor((row["id"], 0, row["passage"]))
    for scope in (None, {"workspaces": ["acme"]}, {"documentIds": [row["id"]]}):
        for after in (None, cursor):
            variables = {"id": ada, "scope": scope, "after": after}
            for plan in await plans_of(driver, client, PAGES, variables):
                assert not whole_store_reads(plan), (scope, after, plan)
