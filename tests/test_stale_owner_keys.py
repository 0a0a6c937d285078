"""`schema apply` reconciles the copies of an owner the service keeps for speed when another
pipeline changed the owner (contract §2: "nor may a stale copy … the derived data is then
reconciled, and the run says how much it fixed"; issue 38 §6): the owner key the lexical reads
filter by (graph/owner_stamping.py) and the workspace the mention order keeps
(graph/mention_order.py). tests/test_owner_change_properties.py draws such changes at random.
"""

from __future__ import annotations

from typing import Any

import pytest

from graph import mention_order
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.ownership import workspace_key
from tests.conftest import TEST_DIMENSION, Client
from tests.support.graph_builder import GraphBuilder
from tests.support.load_helpers import Cli

SEARCH = """
query($q: String!, $scope: ScopeInput) {
  searchEntities(query: $q, mode: LEXICAL, scope: $scope) { entity { id } }
  searchPassages(query: $q, mode: LEXICAL, scope: $scope) { passage { id } }
}
"""
LOOKUP = "query($id: ID!, $scope: ScopeInput) { entity(id: $id, scope: $scope) { id } }"
KEYS = "MATCH (n) WHERE n.id IN $ids RETURN n.id AS id, n.workspaceKey AS key"


async def lexical(client: Client, query: str, workspace: str) -> dict[str, list[str]]:
    body = await client.execute(SEARCH, {"q": query, "scope": {"workspaces": [workspace]}})
    assert "errors" not in body, body
    return {
        "entities": [hit["entity"]["id"] for hit in body["data"]["searchEntities"]],
        "passages": [hit["passage"]["id"] for hit in body["data"]["searchPassages"]],
    }


async def looked_up(client: Client, entity_id: str, workspace: str) -> Any:
    body = await client.execute(LOOKUP, {"id": entity_id, "scope": {"workspaces": [workspace]}})
    return body["data"]["entity"]


async def keys(graph: Graph, *ids: str) -> dict[str, str | None]:
    return {row["id"]: row["key"] for row in await graph.read(KEYS, {"ids": list(ids)})}


async def test_an_entity_another_pipeline_shared_is_found_by_every_workspace_after_schema_apply(
    client: Client, builder: GraphBuilder, graph: Graph, cli: Cli
) -> None:
    """The issue's graph: loaded owned by w1; another pipeline removes its `workspace`; passages
    of w0 and w2 then mention it. Its key stayed w1's, so w0's and w2's LEXICAL searches missed
    it while `entity` returned it; `schema apply` removes the stale key and says so."""
    await builder.version("w1", ["Ada Lovelace wrote notes."], mentions={"Ada Lovelace": [0]})
    ada = builder.entity_id("Ada Lovelace")
    await graph.write("MATCH (e:Entity {id: $id}) REMOVE e.workspace", {"id": ada})
    for workspace in ("w0", "w2"):
        version = await builder.version(workspace, ["A letter about Ada Lovelace."])
        await graph.write(
            "MATCH (e:Entity {id: $id}), (c:Chunk {id: $chunk}) CREATE (e)-[:MENTIONED_IN]->(c)",
            {"id": ada, "chunk": version.passage_ids[0]},
        )
    await apply_schema(graph, TEST_DIMENSION)
    assert await looked_up(client, ada, "w0") == {"id": ada}  # the other doors have it

    run = await cli.run("schema", "apply")
    assert run.code == 0, run.err
    for workspace in ("w0", "w1", "w2"):
        assert (await lexical(client, "ada lovelace", workspace))["entities"] == [ada], workspace
    assert await keys(graph, ada) == {ada: None}  # unowned: a candidate for every caller
    assert "owners: entities: 0 stamped with their workspace, 1 stale keys fixed" in run.out


async def test_a_document_another_pipeline_moved_is_found_in_its_new_workspace_after_schema_apply(
    client: Client,
    builder: GraphBuilder,
    graph: Graph,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A document moved from w1 to w2, its entity with it (as the owner rule asks): the passage
    keys, the entity's key and the workspace its ordered mentions keep were w1's. Every entity
    is read through the mention order here (a hub's way), which held w1 too."""
    monkeypatch.setattr(mention_order, "DENSE_MENTIONS", 0)
    version = await builder.version(
        "w1", ["Babbage built the engine.", "The engine ran."], mentions={"Babbage": [0, 1]}
    )
    babbage = builder.entity_id("Babbage")
    await apply_schema(graph, TEST_DIMENSION)
    await mention_order.order_mentions(graph)
    await graph.write(
        "MATCH (d:Document {id: $document}) SET d.workspace = 'w2'"
        " WITH d MATCH (e:Entity {id: $id}) SET e.workspace = 'w2'",
        {"document": version.document_id, "id": babbage},
    )

    run = await cli.run("schema", "apply")
    assert run.code == 0, run.err
    found = await lexical(client, "engine babbage", "w2")
    assert found["entities"] == [babbage]
    assert sorted(found["passages"]) == sorted(version.passage_ids)
    assert await looked_up(client, babbage, "w2") == {"id": babbage}
    assert await lexical(client, "engine babbage", "w1") == {"entities": [], "passages": []}
    key = workspace_key("w2")
    assert await keys(graph, babbage, *version.passage_ids) == dict.fromkeys(
        [babbage, *version.passage_ids], key
    )
    assert "owners: entities: 0 stamped with their workspace, 1 stale keys fixed" in run.out
    assert "owners: passages: 0 given their workspace's key, 2 stale keys fixed" in run.out
    assert "2 mentions of documents moved to another workspace keyed anew" in run.out


async def test_a_second_schema_apply_finds_nothing_stale(
    builder: GraphBuilder, graph: Graph, cli: Cli
) -> None:
    await builder.version("w1", ["Ada wrote notes."], mentions={"Ada": [0]})
    await graph.write("MATCH (e:Entity) REMOVE e.workspace", {})  # mentioned in w1 alone
    first = await cli.run("schema", "apply")
    assert "owners: entities: 1 stamped with their workspace, 0 stale keys fixed" in first.out
    second = await cli.run("schema", "apply")
    assert "owners: entities: 0 stamped with their workspace, 0 stale keys fixed" in second.out
    assert "owners: passages: 0 given their workspace's key, 0 stale keys fixed" in second.out
    assert "0 mentions of documents moved to another workspace keyed anew" in second.out
