"""Running on more than one machine (docs/operations.md): the routing URI scheme a Neo4j
cluster or Aura needs works against the local server; every read asks the cluster for a
reader (routing access mode READ) and every write for the leader; Qdrant as a server is the
same client, configured by QDRANT_URL."""

from __future__ import annotations

from typing import Any

import neo4j
import pytest

from api.settings import Settings, SettingsError
from api.vector_store_setup import create_vector_store
from graph.driver import Graph
from tests.support.graph_builder import GraphBuilder
from tests.support.operations_app import SEARCH, WALK, post, served, three_people
from vectorstores import qdrant


def routing_uri(bolt_uri: str) -> str:
    assert bolt_uri.startswith("bolt://")
    return "neo4j://" + bolt_uri.removeprefix("bolt://")


async def test_the_service_answers_through_the_routing_scheme_neo4j_uri(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph
) -> None:
    await three_people(builder, graph)
    async with served(neo4j_uri, NEO4J_URI=routing_uri(neo4j_uri)) as (http, app):
        assert app.state.services.graph.driver.__class__.__name__ == "AsyncNeo4jDriver"
        search = await post(http, SEARCH, {"query": "ada lovelace"})
        walk = await post(http, WALK, {"id": builder.entity_id("Ada Lovelace")})
        ready = await http.get("/readyz")
    assert "errors" not in search and "errors" not in walk, (search, walk)
    assert search["data"]["searchEntities"][0]["entity"]["name"] == "Ada Lovelace"
    assert len(walk["data"]["walk"]["edges"]) == 2
    assert ready.status_code == 200


class AccessModes:
    """A driver that notes the access mode each session or query asks for."""

    def __init__(self, driver: neo4j.AsyncDriver) -> None:
        self.driver = driver
        self.modes: list[str] = []

    def session(self, **config: Any) -> Any:
        self.modes.append(config.get("default_access_mode", "WRITE (default)"))
        return self.driver.session(**config)

    async def execute_query(self, *args: Any, **config: Any) -> Any:
        self.modes.append(str(config.get("routing_")))
        return await self.driver.execute_query(*args, **config)


async def test_every_read_asks_for_a_reader_and_every_write_for_the_leader(
    neo4j_uri: str, graph: Graph
) -> None:
    async with neo4j.AsyncGraphDatabase.driver(routing_uri(neo4j_uri), auth=None) as driver:
        spy = AccessModes(driver)
        routed = Graph(spy, None)  # type: ignore[arg-type]
        await routed.write("MERGE (n:RoutingProbe {id: $id})", {"id": "p"})
        [row] = await routed.read("MATCH (n:RoutingProbe {id: $id}) RETURN n.id AS id", {"id": "p"})
        await routed.write("MATCH (n:RoutingProbe) DELETE n", {})
    assert row["id"] == "p"
    assert spy.modes == [
        str(neo4j.RoutingControl.WRITE),
        neo4j.READ_ACCESS,
        str(neo4j.RoutingControl.WRITE),
    ]


def test_qdrant_url_makes_the_store_a_qdrant_server_client_through_the_same_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[dict[str, Any]] = []
    # The real client would start asking the (absent) server for its version.
    monkeypatch.setattr(qdrant, "AsyncQdrantClient", lambda **options: made.append(options))
    settings = Settings.from_environ(
        {
            "VECTOR_STORE": "qdrant",
            "QDRANT_URL": "https://127.0.0.1:6333",
            "QDRANT_API_KEY": "qdrant-key",
        }
    )
    store = create_vector_store(settings, dimension=8)
    assert isinstance(store, qdrant.QdrantVectorStore)
    assert made == [{"url": "https://127.0.0.1:6333", "api_key": "qdrant-key"}]
    assert "qdrant-key" not in repr(settings)


def test_a_qdrant_url_that_is_not_http_stops_start_up_naming_it() -> None:
    with pytest.raises(SettingsError, match=r"QDRANT_URL='127\.0\.0\.1:6333'"):
        Settings.from_environ({"QDRANT_URL": "127.0.0.1:6333"})
