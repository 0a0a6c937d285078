"""`entity(id)` and `passage(id)`: null for hidden and missing alike (contract §1, §6, §8)."""

from __future__ import annotations

from graph.driver import Graph
from tests.conftest import Client, without_cost
from tests.support.graph_builder import GraphBuilder, new_id

ENTITY = "query($id: ID!, $scope: ScopeInput) { entity(id: $id, scope: $scope) { id name labels } }"
PASSAGE = (
    "query($id: ID!, $scope: ScopeInput) {"
    " passage(id: $id, scope: $scope) { id text document { workspace } } }"
)


async def test_a_visible_passage_and_the_entity_it_mentions_are_returned(
    client: Client, builder: GraphBuilder
) -> None:
    version = await builder.version("acme", ["Ada wrote the engine notes."], mentions={"Ada": [0]})
    body = await client.execute(PASSAGE, {"id": version.passage_ids[0]})
    assert body["data"]["passage"]["text"] == "Ada wrote the engine notes."
    body = await client.execute(ENTITY, {"id": builder.entity_id("Ada")})
    assert body["data"]["entity"] == {
        "id": builder.entity_id("Ada"),
        "name": "Ada",
        "labels": ["Person"],
    }


async def test_missing_ids_return_null(client: Client) -> None:
    assert (await client.execute(PASSAGE, {"id": new_id()}))["data"]["passage"] is None
    assert (await client.execute(ENTITY, {"id": new_id()}))["data"]["entity"] is None


async def test_another_workspace_is_hidden_exactly_like_missing(
    client: Client, builder: GraphBuilder
) -> None:
    version = await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    other = {"workspaces": ["globex"]}
    hidden_passage = await client.execute(PASSAGE, {"id": version.passage_ids[0], "scope": other})
    missing_passage = await client.execute(PASSAGE, {"id": new_id(), "scope": other})
    assert hidden_passage == missing_passage  # the whole answer, its static cost included
    assert without_cost(hidden_passage) == {"data": {"passage": None}}
    hidden_entity = await client.execute(ENTITY, {"id": builder.entity_id("Ada"), "scope": other})
    assert without_cost(hidden_entity) == {"data": {"entity": None}}


async def test_another_document_scope_hides_the_passage(
    client: Client, builder: GraphBuilder
) -> None:
    version = await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    scope = {"documentIds": [new_id()]}
    assert (await client.execute(PASSAGE, {"id": version.passage_ids[0], "scope": scope}))["data"][
        "passage"
    ] is None


async def test_a_superseded_passage_is_null(client: Client, builder: GraphBuilder) -> None:
    first = await builder.version("acme", ["Old text."], mentions={"Ada": [0]})
    second = await builder.version(
        "acme", ["New text."], document_id=first.document_id, mentions={"Ada": [0]}
    )
    assert (await client.execute(PASSAGE, {"id": first.passage_ids[0]}))["data"]["passage"] is None
    assert (await client.execute(PASSAGE, {"id": second.passage_ids[0]}))["data"]["passage"][
        "text"
    ] == "New text."


async def test_a_passage_written_by_a_running_job_is_null(
    client: Client, builder: GraphBuilder
) -> None:
    running = await builder.version("acme", ["Unfinished."], commit=False)
    assert (await client.execute(PASSAGE, {"id": running.passage_ids[0]}))["data"][
        "passage"
    ] is None


async def test_a_passage_written_by_a_failed_job_is_null(
    client: Client, builder: GraphBuilder
) -> None:
    failed = await builder.version("acme", ["Failed."], fail=True)
    assert (await client.execute(PASSAGE, {"id": failed.passage_ids[0]}))["data"]["passage"] is None


async def test_an_entity_only_another_workspace_mentions_is_null(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("globex", ["Grace."], mentions={"Grace": [0]})
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    scope = {"workspaces": ["acme"]}
    assert (await client.execute(ENTITY, {"id": builder.entity_id("Grace"), "scope": scope}))[
        "data"
    ]["entity"] is None


async def test_an_entity_whose_in_scope_passages_are_all_superseded_is_still_returned(
    client: Client, builder: GraphBuilder
) -> None:
    """Returnable = an in-scope passage mentions it, current or not (contract §3, §6)."""
    first = await builder.version("acme", ["Old."], mentions={"Ada": [0]})
    await builder.version("acme", ["New."], document_id=first.document_id)
    body = await client.execute(
        "query($id: ID!) { entity(id: $id) { name evidence { id } } }",
        {"id": builder.entity_id("Ada")},
    )
    assert body["data"]["entity"] == {"name": "Ada", "evidence": []}


async def test_a_non_canonical_id_is_malformed(client: Client) -> None:
    body = await client.execute(ENTITY, {"id": "ADA"})
    assert body["errors"][0]["extensions"]["code"] == "MALFORMED"
    assert "`id`" in body["errors"][0]["message"]


async def test_naming_a_workspace_you_are_not_granted_is_forbidden_not_narrowed(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    # AUTH_MODE=none grants every workspace, so nothing is forbidden here; see test_auth for
    # the real check. This test pins that an empty workspace list reads nothing.
    version = await builder.version("acme", ["Ada."])
    body = await client.execute(
        PASSAGE, {"id": version.passage_ids[0], "scope": {"workspaces": []}}
    )
    assert body["data"]["passage"] is None


async def test_n_entity_lookups_in_one_request_cost_one_batched_read(
    client: Client, builder: GraphBuilder
) -> None:
    names = [f"Person {i}" for i in range(20)]
    await builder.version(
        "acme", [f"{n} was here." for n in names], mentions={n: [i] for i, n in enumerate(names)}
    )
    selections = " ".join(
        f'e{i}: entity(id: "{builder.entity_id(n)}") {{ name }}' for i, n in enumerate(names)
    )
    body = await client.execute("{ " + selections + " }")
    assert [body["data"][f"e{i}"]["name"] for i in range(20)] == names
    assert len(client.statements) == 1, client.statements


async def test_entity_evidence_for_many_entities_costs_two_reads(
    client: Client, builder: GraphBuilder
) -> None:
    names = [f"Person {i}" for i in range(10)]
    await builder.version(
        "acme", [f"{n} was here." for n in names], mentions={n: [i] for i, n in enumerate(names)}
    )
    selections = " ".join(
        f'e{i}: entity(id: "{builder.entity_id(n)}") {{ evidence {{ text document {{ title }} }} }}'
        for i, n in enumerate(names)
    )
    body = await client.execute("{ " + selections + " }")
    assert body["data"]["e3"]["evidence"][0]["text"] == "Person 3 was here."
    # entities, then their evidence passages with their documents: 2 batched reads.
    assert len(client.statements) == 2, client.statements
