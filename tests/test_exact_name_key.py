"""A query with no content word reads an index, never every entity (issue 25 §3, contract §3:
"a name made only of function words or single letters (`The Who`, `It`, `Q`) is found by its
exact name"; graph/name_key.py).

The database hits of such a search are the same whatever the graph holds: PROFILE, at two graph
sizes, every statement the request sent. The fillers are made by one UNWIND, as another
pipeline would write them, and keyed by `schema apply`, as a graph an earlier release loaded.
"""

from __future__ import annotations

import os
from typing import Any

import neo4j

from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.graph_builder import GraphBuilder, unit_vector

SEARCH = """
query($query: String!, $mode: SearchMode!) {
  searchEntities(query: $query, mode: $mode) { entity { name } }
}
"""

FILLERS = """
UNWIND range($first, $last) AS n
CREATE (:Entity:Person {id: randomUUID(), name: 'Filler ' + n})
"""


# The suite's two sizes, ten times apart: a scan costs thousands of database hits more at the
# larger one (about 3 per entity), the index seek the same at both. The figures:
# EXACT_NAME_SIZES=10000,100000 (docs/benchmarks.md).
SIZES = tuple(int(size) for size in os.environ.get("EXACT_NAME_SIZES", "500,5000").split(","))


def db_hits(plan: Any) -> int:
    return int(plan.get("dbHits", 0)) + sum(db_hits(child) for child in plan.get("children", []))


async def names_found(client: Client, query: str, mode: str = "LEXICAL") -> list[str]:
    body = await client.execute(SEARCH, {"query": query, "mode": mode})
    assert "errors" not in body, body
    return [hit["entity"]["name"] for hit in body["data"]["searchEntities"]]


async def profiled_hits(driver: neo4j.AsyncDriver, client: Client, query: str) -> int:
    """The database hits of every statement one LEXICAL search for `query` sent."""
    assert await names_found(client, query) != [] or query == "who is it?"
    total = 0
    for statement, parameters in zip(client.statements, client.parameters, strict=True):
        _, summary, _ = await driver.execute_query(
            "PROFILE " + statement, parameters, routing_=neo4j.RoutingControl.READ
        )
        assert summary.profile is not None
        total += db_hits(summary.profile)
    return total


async def test_a_query_with_no_content_word_costs_the_same_in_a_graph_ten_times_larger(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph, driver: neo4j.AsyncDriver
) -> None:
    async with serving(neo4j_uri, graph, REQUEST_TIMEOUT_SECONDS="600") as client:
        await costs_the_same(client, builder, graph, driver)


async def costs_the_same(
    client: Client, builder: GraphBuilder, graph: Graph, driver: neo4j.AsyncDriver
) -> None:
    """(A scan of many names can outlast the default request time on a loaded machine.)"""
    names = ["The Who", "It", "Q"]
    await builder.version(
        "acme",
        ["text"],
        mentions={name: [0] for name in names},
        vectors={name: unit_vector(TEST_DIMENSION, 3) for name in names},
    )
    queries = ("the who", "It", "q", "who is it?")
    hits: dict[int, list[int]] = {}
    made = 0
    for size in SIZES:
        await graph.write(FILLERS, {"first": made, "last": size - 1})
        made = size
        await apply_schema(graph, TEST_DIMENSION)
        assert await names_found(client, "the who") == ["The Who"]
        assert await names_found(client, "IT") == ["It"]
        hits[size] = [await profiled_hits(driver, client, query) for query in queries]
    print(f"database hits of {queries} at each size: {hits}")
    assert hits[SIZES[0]] == hits[SIZES[1]], hits


async def test_an_entity_another_pipeline_writes_without_a_key_is_still_found_by_its_name(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    """The key is kept for speed; its absence changes no answer (contract §2)."""
    await builder.version("acme", ["text"], mentions={"The Who": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    version = await builder.version("beta", ["more text"], mentions={"Ada": [0]})
    await graph.write(
        "MATCH (c:Chunk {id: $passage})"
        " CREATE (:Entity:Person {id: randomUUID(), name: 'It'})-[:MENTIONED_IN]->(c)",
        {"passage": version.passage_ids[0]},
    )
    assert await names_found(client, "it") == ["It"]
    assert await names_found(client, "the who") == ["The Who"]
    # Renamed in place by another pipeline: found by its new name once the key is read again.
    await graph.write("MATCH (e:Entity {name: 'The Who'}) SET e.name = 'A'", {})
    await apply_schema(graph, TEST_DIMENSION)
    assert await names_found(client, "a") == ["A"]
    assert await names_found(client, "the who") == []
