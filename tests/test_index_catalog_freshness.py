"""The index catalog need not be read on every request (contract §3), by its four rules, on the
real server; graph/catalog_cache.py says how each is kept.

In-process apps age their kept catalog only when a test moves `client.clock`; the served
process keeps it for an hour (TEST_CATALOG_MAX_AGE_SECONDS), so what either sees of an index
change it did not make, it sees through the rule under test, not because time passed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j.exceptions import DatabaseError

from graph.catalog_cache import MARK_CATALOG_CHANGED
from graph.driver import Graph
from graph.entity_search import SEARCH_ENTITIES
from graph.graph_schema import apply_schema
from graph.index_catalog import SHOW_INDEX_STATES
from graph.passage_search import SEARCH_PASSAGES
from tests.conftest import TEST_DIMENSION, Client, without_request_ids
from tests.support.graph_builder import GraphBuilder, unit_vector
from tests.support.load_helpers import Cli, bundle_line, entity, write_bundle
from tests.support.node_tools import REPOSITORY
from tests.support.serving import LOOPBACK, Served, served_process, service_environment

SEARCH = """
query($query: String!, $mode: SearchMode! = HYBRID, $labels: [String!]) {
  searchEntities(query: $query, mode: $mode, labels: $labels) { entity { name } }
}
"""
SEARCH_PASSAGES_QUERY = """
query($query: String!, $mode: SearchMode! = HYBRID) {
  searchPassages(query: $query, mode: $mode) { passage { text } }
}
"""
NAMES = {SHOW_INDEX_STATES: "catalog", SEARCH_ENTITIES: "search", SEARCH_PASSAGES: "search"}
ROBOT_INDEXES = (
    "CREATE FULLTEXT INDEX robot_names FOR (n:Robot) ON EACH [n.name]",
    "CREATE VECTOR INDEX robot_vectors FOR (n:Robot) ON (n.embedding) OPTIONS {indexConfig:"
    " {`vector.dimensions`: 8, `vector.similarity_function`: 'cosine'}}",
)


def statements(client: Client) -> list[str]:
    return [NAMES.get(query, query[:40]) for query in client.statements]


async def names(client: Client, query: str, **variables: Any) -> list[str]:
    client.embedder.script(query, unit_vector(TEST_DIMENSION, 0))
    body = await client.execute(SEARCH, {"query": query, **variables})
    assert "errors" not in body, body
    return sorted(hit["entity"]["name"] for hit in body["data"]["searchEntities"])


async def error_of(client: Client, query: str, **variables: Any) -> dict[str, Any]:
    client.embedder.script(query, unit_vector(TEST_DIMENSION, 0))
    body = await client.execute(SEARCH, {"query": query, **variables})
    error: dict[str, Any] = without_request_ids(body["errors"][0]["extensions"])
    return error


async def rho_person_and_robot(builder: GraphBuilder, graph: Graph) -> None:
    """Rho Person with both indexes of Person; Rho Robot, a Robot no index covers yet."""
    await builder.version("acme", ["Rho Person."], mentions={"Rho Person": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    await builder.version(
        "acme", ["Rho Robot."], mentions={"Rho Robot": [0]}, labels={"Rho Robot": ["Robot"]}
    )


async def kept(client: Client, query: str = "rho") -> list[str]:
    """Search until the app answers from its kept catalog (one statement): a new app reads
    the catalog on its first two searches (graph/catalog_cache.py says why)."""
    for _ in range(3):
        found = await names(client, query)
        if statements(client) == ["search"]:
            return found
    pytest.fail(f"the catalog was never kept: {statements(client)}")


async def robot_indexes_outside_the_commands(graph: Graph) -> None:
    for statement in ROBOT_INDEXES:
        await graph.write(statement, {})
    await graph.auto_commit("CALL db.awaitIndexes(60)", {})


# 1. Changes made by the service's own commands: seen by the next request of every service --


@pytest.fixture
def second_service(neo4j_uri: str, tmp_path: Path) -> Iterator[Served]:
    """Another `evidencegraph` process on the same graph, keeping its catalog for an hour."""
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "tests.support.served_app:create_test_app",
        "--host", LOOPBACK, "--port", "{port}", "--log-level", "warning",
    ]  # fmt: skip
    with served_process(
        command,
        name="second-service",
        cwd=REPOSITORY,
        env={**service_environment(neo4j_uri), "GRAPHIQL_ENABLED": "false"},
        probe_path="/healthz",
        log_dir=tmp_path,
    ) as served:
        yield served


def served_search(served: Served, query: str) -> tuple[list[str], list[str]]:
    """The names a LEXICAL search of the served process finds, and the statements it sent."""
    httpx.delete(served.url + "/_test/statements").raise_for_status()
    response = httpx.post(
        served.url + "/graphql",
        json={"query": SEARCH, "variables": {"query": query, "mode": "LEXICAL"}},
        timeout=60,
    )
    body = response.json()
    assert "errors" not in body, body
    sent = httpx.get(served.url + "/_test/statements").json()["statements"]
    return (
        sorted(hit["entity"]["name"] for hit in body["data"]["searchEntities"]),
        [NAMES.get(s["query"], s["query"][:40]) for s in sent],
    )


async def test_a_schema_apply_is_seen_by_the_next_request_of_every_running_service(
    client: Client, builder: GraphBuilder, graph: Graph, cli: Cli, second_service: Served
) -> None:
    await rho_person_and_robot(builder, graph)
    assert await kept(client) == ["Rho Person"]
    for _ in range(3):
        found, sent = served_search(second_service, "rho")
    assert (found, sent) == (["Rho Person"], ["search"])  # its catalog is kept
    run = await cli.run("schema", "apply")
    assert run.code == 0, run.err
    assert await names(client, "rho") == ["Rho Person", "Rho Robot"]
    found, sent = served_search(second_service, "rho")
    assert found == ["Rho Person", "Rho Robot"]
    # The search read the moved marker; the catalog read after it named a new label.
    assert sent == ["search", "catalog", "search"], sent


async def test_a_load_that_creates_indexes_is_seen_by_the_next_request(
    client: Client, builder: GraphBuilder, graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    await builder.version("acme", ["Tau Person."], mentions={"Tau Person": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    assert await kept(client, "tau") == ["Tau Person"]
    line = bundle_line(1, [(1, "Tau Robot.")], entities=[entity(1, "Tau Robot", [1], "Robot")])
    run = await cli.run("load", str(write_bundle(tmp_path / "robots.jsonl", [line])))
    assert run.code == 0, run.err
    assert await names(client, "tau") == ["Tau Person", "Tau Robot"]


# 2. Changes made outside the commands: seen within 1 s ----------------------------------------


async def test_an_index_created_outside_the_commands_is_seen_within_one_second(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await rho_person_and_robot(builder, graph)
    assert await kept(client) == ["Rho Person"]
    await robot_indexes_outside_the_commands(graph)
    client.clock.advance(0.5)
    await names(client, "rho")  # may answer from the kept catalog: the second is not over
    client.clock.advance(0.5)
    assert await names(client, "rho") == ["Rho Person", "Rho Robot"]
    assert statements(client).count("catalog") == 1, statements(client)


# 3. A search that fails because an index has gone reads the catalog again ----------------------


async def test_a_search_whose_index_has_gone_reads_the_catalog_again_and_answers_from_it(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await rho_person_and_robot(builder, graph)
    await robot_indexes_outside_the_commands(graph)
    assert await kept(client) == ["Rho Person", "Rho Robot"]
    # Robot loses its VECTOR index: no longer an entity label, so not searched, no error.
    await graph.write("DROP INDEX robot_vectors", {})
    assert await names(client, "rho") == ["Rho Person"]
    assert statements(client) == ["search", "catalog", "search"]
    # Person loses its FULLTEXT index: the fresh catalog says so.
    await graph.write("DROP INDEX entity_name_fulltext_Person", {})
    assert await error_of(client, "rho", labels=["Person"]) == {
        "code": "INDEX_NOT_READY",
        "label": "Person",
        "index": "FULLTEXT",
        "state": "MISSING",
    }


async def test_a_passage_search_whose_index_has_gone_reads_the_catalog_again(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["dock"], passage_vectors={0: unit_vector(TEST_DIMENSION, 0)})
    await apply_schema(graph, TEST_DIMENSION)
    client.embedder.script("dock", unit_vector(TEST_DIMENSION, 0))
    for _ in range(3):
        body = await client.execute(SEARCH_PASSAGES_QUERY, {"query": "dock"})
    assert statements(client) == ["search"], statements(client)
    await graph.write("DROP INDEX chunk_embedding_vector", {})
    # HYBRID runs lexical only without the vector index (contract §4) ...
    body = await client.execute(SEARCH_PASSAGES_QUERY, {"query": "dock"})
    assert body["data"]["searchPassages"] == [{"passage": {"text": "dock"}}], body
    assert statements(client) == ["search", "catalog", "search"]
    # ... and SEMANTIC cannot: the catalog it was read again into says so.
    body = await client.execute(SEARCH_PASSAGES_QUERY, {"query": "dock", "mode": "SEMANTIC"})
    assert without_request_ids(body["errors"][0]["extensions"]) == {
        "code": "INDEX_NOT_READY",
        "label": "Chunk",
        "index": "VECTOR",
        "state": "MISSING",
    }


# 4. A catalog holding any index that is not ONLINE is never kept -------------------------------


async def failed_index(graph: Graph) -> None:
    """A FULLTEXT index Neo4j cannot populate: a keyword analyzer makes the whole name one
    term, and Lucene refuses a term over 32,766 bytes."""
    await graph.write("CREATE (:Huge {name: $name})", {"name": "x" * 40_000})
    await graph.write(
        "CREATE FULLTEXT INDEX huge_names FOR (n:Huge) ON EACH [n.name]"
        " OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}}",
        {},
    )
    with pytest.raises(DatabaseError, match="is in failed state"):
        await graph.auto_commit("CALL db.awaitIndex('huge_names', 120)", {})
    rows = await graph.read("SHOW INDEXES YIELD name, state WHERE name = 'huge_names'", {})
    assert rows[0]["state"] == "FAILED", rows


async def test_a_catalog_holding_an_index_that_is_not_online_is_never_kept(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Rho Person."], mentions={"Rho Person": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    await failed_index(graph)
    for _ in range(3):
        assert await names(client, "rho") == ["Rho Person"]  # Huge is no entity label
        assert sorted(statements(client)) == ["catalog", "search"]
    await graph.write("DROP INDEX huge_names", {})
    assert await kept(client) == ["Rho Person"]


# Round trips ---------------------------------------------------------------------------------


async def test_a_search_costs_one_statement_while_the_catalog_is_kept(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Rho Person.", "dock"], mentions={"Rho Person": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    await names(client, "rho")
    assert statements(client) == ["catalog", "search"]  # nothing kept yet
    await names(client, "rho")
    assert statements(client) == ["search", "catalog"]  # kept before any marker was seen
    for mode in ("HYBRID", "LEXICAL", "SEMANTIC"):
        await names(client, "rho", mode=mode)
        assert statements(client) == ["search"], (mode, statements(client))
        client.embedder.script("dock", unit_vector(TEST_DIMENSION, 0))
        body = await client.execute(SEARCH_PASSAGES_QUERY, {"query": "dock", "mode": mode})
        assert "errors" not in body, body
        assert statements(client) == ["search"], (mode, statements(client))
    await graph.write(MARK_CATALOG_CHANGED, {})  # as a command of the service does
    await names(client, "rho")
    assert statements(client) == ["search", "catalog"]  # the same targets: no second search
