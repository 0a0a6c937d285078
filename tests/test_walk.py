"""`walk` (contract §5, seed "Relationship walk"): start checks, which edges qualify, types,
direction, bounds, order and determinism, on a real Neo4j."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from api.schema import create_schema
from graph.driver import Graph
from tests.conftest import Client, serving, without_request_ids
from tests.support.graph_builder import GraphBuilder, new_id

WALK = """
query($id: ID!, $scope: ScopeInput, $depth: Int! = 1, $types: [String!],
      $maxNodes: Int! = 50, $maxEdges: Int! = 100, $maxCandidates: Int! = 500) {
  walk(entityId: $id, scope: $scope, depth: $depth, relationTypes: $types,
       maxNodes: $maxNodes, maxEdges: $maxEdges, maxCandidates: $maxCandidates) {
    start { id name }
    nodes { id name }
    truncatedBy
    edges {
      id type kind depth evidenceIds
      source { id name } target { id name }
      evidence { id text }
    }
  }
}
"""


async def walk(client: Client, start: str, **variables: Any) -> dict[str, Any]:
    body = await client.execute(WALK, {"id": start, **variables})
    assert "errors" not in body, body
    result: dict[str, Any] = body["data"]["walk"]
    return result


async def refusal(client: Client, start: str, **variables: Any) -> dict[str, Any]:
    body = await client.execute(WALK, {"id": start, **variables})
    assert body["data"] is None, body
    error: dict[str, Any] = body["errors"][0]
    return error


def edges(result: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (edge["source"]["name"], edge["type"], edge["target"]["name"], edge["kind"])
        for edge in result["edges"]
    ]


def names(result: dict[str, Any]) -> list[str]:
    return [node["name"] for node in result["nodes"]]


def assert_within_bounds(result: dict[str, Any], max_nodes: int, max_edges: int) -> None:
    assert len(result["nodes"]) <= max_nodes
    assert len(result["edges"]) <= max_edges
    node_ids = {node["id"] for node in result["nodes"]}
    for edge in result["edges"]:
        assert {edge["source"]["id"], edge["target"]["id"]} <= node_ids


async def star(
    builder: GraphBuilder, leaves: int, onward: bool = False, hub: str = "Hub"
) -> list[str]:
    """`hub` KNOWS `leaves` leaves (paths); with `onward`, each leaf LIKES a far entity."""
    leaf_names = [f"Leaf {i}" for i in range(leaves)]
    far_names = [f"Far {i}" for i in range(leaves)] if onward else []
    everyone = [hub, *leaf_names, *far_names]
    await builder.version(
        "acme",
        [f"{name} is here." for name in everyone],
        mentions={name: [i] for i, name in enumerate(everyone)},
        relations=[(hub, "KNOWS", leaf, None) for leaf in leaf_names]
        + [(leaf, "LIKES", far, None) for leaf, far in zip(leaf_names, far_names, strict=False)],
    )
    return leaf_names


async def relate(graph: Graph, source: str, rel_type: str, target: str) -> None:
    """A relation written by another pipeline, of any type (the graph model allows it)."""
    await graph.write(
        "MATCH (s:Entity {id: $source}), (t:Entity {id: $target})"
        " CREATE (s)-[r:$($type) {id: randomUUID(), passageIds: []}]->(t)",
        {"source": source, "target": target, "type": rel_type},
    )


# --- start checks (seed step 1, contract §5) -------------------------------------------------


@pytest.mark.parametrize("bad", ["ada", "A0B1C2D3-0000-4000-8000-000000000000", "{0b6f5d1e}"])
async def test_an_entity_id_that_is_not_a_canonical_lowercase_uuid_is_malformed(
    client: Client, bad: str
) -> None:
    error = await refusal(client, bad)
    assert error["extensions"]["code"] == "MALFORMED"
    assert "`entityId`" in error["message"]
    assert client.statements == []  # checked before any I/O


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("depth", 0),
        ("depth", 3),
        ("maxNodes", 0),
        ("maxNodes", 501),
        ("maxEdges", 0),
        ("maxEdges", 1001),
        ("maxCandidates", 0),
        ("maxCandidates", 5001),
    ],
)
async def test_depth_and_bounds_outside_their_ranges_are_malformed(
    client: Client, argument: str, value: int
) -> None:
    error = await refusal(client, new_id(), **{argument: value})
    assert error["extensions"]["code"] == "MALFORMED"
    assert f"`{argument}`" in error["message"]


async def test_depth_and_bounds_at_the_ends_of_their_ranges_are_accepted(client: Client) -> None:
    for variables in (
        {"depth": 1, "maxNodes": 1, "maxEdges": 1, "maxCandidates": 1},
        {"depth": 2, "maxNodes": 500, "maxEdges": 1000, "maxCandidates": 5000},
    ):
        error = await refusal(client, new_id(), **variables)
        assert error["extensions"]["code"] == "UNAVAILABLE"  # valid arguments, missing start


@pytest.mark.parametrize("owned", ["HAS_PART", "MENTIONED_IN", "IN_COMMUNITY", "RESOLVED_AS"])
async def test_relation_types_naming_a_graph_owned_type_is_malformed(
    client: Client, owned: str
) -> None:
    error = await refusal(client, new_id(), types=["KNOWS", owned])
    assert error["extensions"]["code"] == "MALFORMED"
    assert "`relationTypes`" in error["message"]
    assert f"`{owned}` is graph-owned and never walked" in error["message"]


@pytest.fixture
async def owning_client(neo4j_uri: str, graph: Graph) -> AsyncIterator[Client]:
    """A client of an app whose setting GRAPH_OWNED_RELATION_TYPES adds SIMILAR_TO."""
    async with serving(neo4j_uri, graph, GRAPH_OWNED_RELATION_TYPES="SIMILAR_TO") as owning:
        yield owning


async def test_relation_types_naming_a_type_the_settings_make_graph_owned_is_malformed(
    owning_client: Client,
) -> None:
    error = await refusal(owning_client, new_id(), types=["SIMILAR_TO"])
    assert error["extensions"]["code"] == "MALFORMED"
    assert "`SIMILAR_TO` is graph-owned" in error["message"]


async def test_empty_relation_types_is_malformed(client: Client) -> None:
    error = await refusal(client, new_id(), types=[])
    assert error["extensions"]["code"] == "MALFORMED"
    assert "`relationTypes`" in error["message"]


async def test_a_missing_start_and_a_hidden_start_get_identical_responses(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("globex", ["Grace."], mentions={"Grace": [0]})
    grace = builder.entity_id("Grace")
    acme = {"workspaces": ["acme"]}
    hidden = await client.execute(WALK, {"id": grace, "scope": acme})
    missing = await client.execute(WALK, {"id": new_id(), "scope": acme})
    assert without_request_ids(hidden) == without_request_ids(missing)
    assert hidden["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
    assert (await walk(client, grace))["start"]["name"] == "Grace"  # visible in its workspace


async def test_a_start_whose_only_passages_are_superseded_is_unavailable(
    client: Client, builder: GraphBuilder
) -> None:
    first = await builder.version("acme", ["Ada, old."], mentions={"Ada": [0]})
    await builder.version("acme", ["New text."], document_id=first.document_id)
    error = await refusal(client, builder.entity_id("Ada"))
    assert error["extensions"]["code"] == "UNAVAILABLE"


async def test_a_start_only_an_unfinished_job_mentions_is_unavailable(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada, being written."], mentions={"Ada": [0]}, commit=False)
    error = await refusal(client, builder.entity_id("Ada"))
    assert error["extensions"]["code"] == "UNAVAILABLE"


# --- which edges qualify (seed steps 2–3) -------------------------------------------------


async def test_a_walk_passes_through_an_entity_whose_only_in_scope_passages_are_superseded(
    client: Client, builder: GraphBuilder
) -> None:
    first = await builder.version("acme", ["Bea, old."], mentions={"Bea": [0]})
    await builder.version("acme", ["Rewritten without Bea."], document_id=first.document_id)
    await builder.version(
        "acme",
        ["Ada knows Bea; Bea knows Cy."],
        mentions={"Ada": [0], "Cy": [0]},
        relations=[("Ada", "KNOWS", "Bea", [0]), ("Bea", "KNOWS", "Cy", [0])],
    )
    # Bea has no visible passage (an UNSUPPORTED entity), yet is in scope: a valid endpoint.
    bea = await client.execute(
        "query($id: ID!) { entity(id: $id) { evidence { id } } }", {"id": builder.entity_id("Bea")}
    )
    assert bea["data"]["entity"] == {"evidence": []}
    result = await walk(client, builder.entity_id("Ada"), depth=2)
    assert edges(result) == [
        ("Ada", "KNOWS", "Bea", "ASSERTION"),
        ("Bea", "KNOWS", "Cy", "ASSERTION"),
    ]
    assert [edge["depth"] for edge in result["edges"]] == [1, 2]
    assert names(result) == ["Ada", "Bea", "Cy"]


async def test_an_edge_whose_passages_are_all_superseded_is_dropped(
    client: Client, builder: GraphBuilder
) -> None:
    first = await builder.version(
        "acme",
        ["Ada works for Acme."],
        mentions={"Ada": [0], "Acme": [0]},
        relations=[("Ada", "WORKS_FOR", "Acme", [0])],
    )
    await builder.version(
        "acme",
        ["Ada founded Acme."],
        document_id=first.document_id,
        mentions={"Ada": [0], "Acme": [0]},
        relations=[("Ada", "FOUNDED", "Acme", [0])],
    )
    result = await walk(client, builder.entity_id("Ada"))
    assert edges(result) == [("Ada", "FOUNDED", "Acme", "ASSERTION")]
    assert result["truncatedBy"] == []


async def test_an_edge_whose_passages_are_all_out_of_scope_is_dropped(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada and Acme."], mentions={"Ada": [0], "Acme": [0]})
    await builder.version(
        "globex", ["Ada works for Acme."], relations=[("Ada", "WORKS_FOR", "Acme", [0])]
    )
    ada = builder.entity_id("Ada")
    assert edges(await walk(client, ada, scope={"workspaces": ["acme"]})) == []
    assert edges(await walk(client, ada)) == [("Ada", "WORKS_FOR", "Acme", "ASSERTION")]


async def test_a_relation_with_no_passage_ids_is_a_path_with_no_evidence(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "acme",
        ["Ada, Bo and Cy."],
        mentions={"Ada": [0], "Bo": [0], "Cy": [0]},
        relations=[("Ada", "KNOWS", "Bo", None), ("Ada", "LIKES", "Cy", [0])],
    )
    # passageIds absent altogether, as another writer may leave it
    await graph.write("MATCH ()-[r:LIKES]->() REMOVE r.passageIds", {})
    result = await walk(client, builder.entity_id("Ada"))
    assert edges(result) == [("Ada", "KNOWS", "Bo", "PATH"), ("Ada", "LIKES", "Cy", "PATH")]
    assert all(edge["evidenceIds"] == [] and edge["evidence"] == [] for edge in result["edges"])


async def test_an_assertion_lists_up_to_three_visible_passages_by_document_id_position_id(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    # Documents whose ids sort first hold only passages that are not visible.
    running = await builder.version(
        "acme", ["r"], document_id="00000000-0000-4000-8000-000000000001", commit=False
    )
    old = await builder.version("acme", ["s"], document_id="00000000-0000-4000-8000-000000000002")
    await builder.version("acme", ["s2"], document_id=old.document_id)
    late = await builder.version(
        "acme", ["b0", "b1"], document_id="bbbbbbbb-0000-4000-8000-000000000000"
    )
    early = await builder.version(
        "acme", ["a0", "a1"], document_id="aaaaaaaa-0000-4000-8000-000000000000"
    )
    await builder.version(
        "acme",
        ["Ada knows Bo."],
        mentions={"Ada": [0], "Bo": [0]},
        relations=[("Ada", "KNOWS", "Bo", [0])],
    )
    listed = [
        late.passage_ids[1],
        running.passage_ids[0],
        early.passage_ids[1],
        old.passage_ids[0],
        late.passage_ids[0],
        early.passage_ids[0],
    ]
    await graph.write("MATCH ()-[r:KNOWS]->() SET r.passageIds = $ids", {"ids": listed})
    [edge] = (await walk(client, builder.entity_id("Ada")))["edges"]
    assert edge["kind"] == "ASSERTION"
    assert edge["evidenceIds"] == [early.passage_ids[0], early.passage_ids[1], late.passage_ids[0]]
    assert [passage["text"] for passage in edge["evidence"]] == ["a0", "a1", "b0"]


async def test_an_edge_to_an_entity_only_another_workspace_mentions_is_excluded(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await builder.version(
        "globex",
        ["Grace knows Ada."],
        mentions={"Grace": [0]},
        relations=[("Grace", "KNOWS", "Ada", None)],
    )
    ada = builder.entity_id("Ada")
    in_acme = await walk(client, ada, scope={"workspaces": ["acme"]})
    assert (edges(in_acme), names(in_acme)) == ([], ["Ada"])
    assert edges(await walk(client, ada)) == [("Grace", "KNOWS", "Ada", "PATH")]


async def test_relation_types_follows_only_the_types_named(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version(
        "acme",
        ["Ada, Acme, Bo, Cy."],
        mentions={"Ada": [0], "Acme": [0], "Bo": [0], "Cy": [0]},
        relations=[
            ("Ada", "WORKS_FOR", "Acme", None),
            ("Ada", "KNOWS", "Bo", None),
            ("Cy", "LIKES", "Ada", None),
        ],
    )
    ada = builder.entity_id("Ada")
    assert edges(await walk(client, ada, types=["KNOWS", "LIKES"])) == [
        ("Ada", "KNOWS", "Bo", "PATH"),
        ("Cy", "LIKES", "Ada", "PATH"),
    ]
    assert edges(await walk(client, ada, types=["NEVER_STORED"])) == []
    assert len((await walk(client, ada))["edges"]) == 3


async def test_graph_owned_types_are_never_walked_even_when_stored_between_two_entities(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "acme",
        ["Ada, Bo and Cy."],
        mentions={"Ada": [0], "Bo": [0], "Cy": [0]},
        relations=[("Ada", "KNOWS", "Cy", None)],
    )
    ada, bo = builder.entity_id("Ada"), builder.entity_id("Bo")
    for owned in ("HAS_PART", "MENTIONED_IN", "IN_COMMUNITY", "RESOLVED_AS"):
        await relate(graph, ada, owned, bo)
    assert edges(await walk(client, ada, depth=2)) == [("Ada", "KNOWS", "Cy", "PATH")]


async def test_a_type_the_settings_make_graph_owned_is_never_walked(
    client: Client, owning_client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Ada and Bo."], mentions={"Ada": [0], "Bo": [0]})
    await relate(graph, builder.entity_id("Ada"), "SIMILAR_TO", builder.entity_id("Bo"))
    ada = builder.entity_id("Ada")
    assert edges(await walk(owning_client, ada)) == []
    assert edges(await walk(client, ada)) == [("Ada", "SIMILAR_TO", "Bo", "PATH")]


async def test_each_edge_keeps_its_stored_direction_in_source_and_target(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version(
        "acme",
        ["Ada, Acme and Bo."],
        mentions={"Ada": [0], "Acme": [0], "Bo": [0]},
        relations=[("Ada", "WORKS_FOR", "Acme", None), ("Bo", "KNOWS", "Ada", None)],
    )
    from_ada = await walk(client, builder.entity_id("Ada"))
    assert edges(from_ada) == [("Bo", "KNOWS", "Ada", "PATH"), ("Ada", "WORKS_FOR", "Acme", "PATH")]
    from_acme = await walk(client, builder.entity_id("Acme"), depth=2)
    assert edges(from_acme) == [
        ("Ada", "WORKS_FOR", "Acme", "PATH"),
        ("Bo", "KNOWS", "Ada", "PATH"),
    ]


# --- bounds (seed step 4) ----------------------------------------------------------------


async def test_max_nodes_cuts_the_walk_and_is_reported(
    client: Client, builder: GraphBuilder
) -> None:
    leaves = await star(builder, 5)
    result = await walk(client, builder.entity_id("Hub"), maxNodes=3)
    assert_within_bounds(result, 3, 100)
    first_two = sorted(builder.entity_id(leaf) for leaf in leaves)[:2]
    assert [edge["target"]["id"] for edge in result["edges"]] == first_two
    assert result["truncatedBy"] == ["NODES"]


async def test_max_edges_cuts_the_walk_and_is_reported(
    client: Client, builder: GraphBuilder
) -> None:
    await star(builder, 5)
    result = await walk(client, builder.entity_id("Hub"), maxEdges=2)
    assert_within_bounds(result, 50, 2)
    assert len(result["edges"]) == 2
    assert result["truncatedBy"] == ["EDGES"]


async def test_max_candidates_is_reported_and_the_walk_goes_on_to_the_next_depth(
    client: Client, builder: GraphBuilder
) -> None:
    await star(builder, 5, onward=True)
    result = await walk(client, builder.entity_id("Hub"), depth=2, maxCandidates=2)
    depth_one = [edge for edge in result["edges"] if edge["depth"] == 1]
    depth_two = [edge for edge in result["edges"] if edge["depth"] == 2]
    assert len(depth_one) == 2  # step 1 used the 2 relationships it was allowed to read
    assert 1 <= len(depth_two) <= 2
    assert_within_bounds(result, 50, 100)
    assert result["truncatedBy"] == ["CANDIDATES"]
    complete = await walk(client, builder.entity_id("Hub"), depth=2)
    assert (len(complete["edges"]), complete["truncatedBy"]) == (10, [])


async def test_depth_is_reported_when_a_node_at_the_last_depth_has_a_qualifying_edge_beyond(
    client: Client, builder: GraphBuilder
) -> None:
    await builder.version(
        "acme",
        ["Ada, Bo and Cy."],
        mentions={"Ada": [0], "Bo": [0], "Cy": [0]},
        relations=[("Ada", "KNOWS", "Bo", None), ("Bo", "KNOWS", "Cy", [0])],
    )
    ada = builder.entity_id("Ada")
    one = await walk(client, ada, depth=1)
    assert (names(one), one["truncatedBy"]) == (["Ada", "Bo"], ["DEPTH"])
    two = await walk(client, ada, depth=2)
    assert (names(two), two["truncatedBy"]) == (["Ada", "Bo", "Cy"], [])


async def test_depth_is_not_reported_for_edges_beyond_that_do_not_qualify(
    client: Client, builder: GraphBuilder
) -> None:
    first = await builder.version(
        "acme",
        ["Bo met Dee."],
        mentions={"Bo": [0], "Dee": [0]},
        relations=[("Bo", "MET", "Dee", [0])],
    )
    await builder.version(  # Bo MET Dee is now only stated by a superseded passage
        "acme", ["Bo and Dee."], document_id=first.document_id, mentions={"Bo": [0], "Dee": [0]}
    )
    await builder.version(
        "acme", ["Ada knows Bo."], mentions={"Ada": [0]}, relations=[("Ada", "KNOWS", "Bo", None)]
    )
    await builder.version(
        "globex", ["Grace."], mentions={"Grace": [0]}, relations=[("Bo", "KNOWS", "Grace", None)]
    )
    ada = builder.entity_id("Ada")
    assert (await walk(client, ada, scope={"workspaces": ["acme"]}))["truncatedBy"] == []
    assert (await walk(client, ada))["truncatedBy"] == ["DEPTH"]  # Grace is in this scope


async def test_several_bounds_at_once_are_reported_in_the_fixed_order(
    client: Client, builder: GraphBuilder
) -> None:
    await star(builder, 5, onward=True)
    result = await walk(client, builder.entity_id("Hub"), maxNodes=3, maxCandidates=4)
    assert_within_bounds(result, 3, 100)
    assert result["truncatedBy"] == ["NODES", "DEPTH", "CANDIDATES"]


async def test_an_edge_refused_by_both_nodes_and_edges_reports_both(
    client: Client, builder: GraphBuilder
) -> None:
    await star(builder, 3)
    result = await walk(client, builder.entity_id("Hub"), maxNodes=2, maxEdges=1)
    assert_within_bounds(result, 2, 1)
    assert result["truncatedBy"] == ["NODES", "EDGES"]


# --- order and determinism -----------------------------------------------------------------


async def test_nodes_come_start_first_then_by_depth_then_id_and_edges_in_their_order(
    client: Client, builder: GraphBuilder
) -> None:
    leaves = await star(builder, 4, onward=True)
    await builder.version(
        "acme",
        ["Leaf 3 admires the hub."],
        relations=[("Leaf 3", "ADMIRES", "Hub", None), ("Far 0", "ADMIRES", "Leaf 2", None)],
    )
    result = await walk(client, builder.entity_id("Hub"), depth=2)
    depth_one = sorted(builder.entity_id(leaf) for leaf in leaves)
    depth_two = sorted(builder.entity_id(f"Far {i}") for i in range(4))
    assert [node["id"] for node in result["nodes"]] == [
        builder.entity_id("Hub"),
        *depth_one,
        *depth_two,
    ]
    keys = [
        (edge["depth"], edge["type"], edge["source"]["id"], edge["target"]["id"], edge["id"])
        for edge in result["edges"]
    ]
    assert keys == sorted(keys)
    assert [key[1] for key in keys if key[0] == 1] == [
        "ADMIRES",
        "KNOWS",
        "KNOWS",
        "KNOWS",
        "KNOWS",
    ]


async def test_the_same_walk_twice_gives_identical_json(
    client: Client, builder: GraphBuilder
) -> None:
    await star(builder, 8, onward=True)
    variables = {"id": builder.entity_id("Hub"), "depth": 2, "maxNodes": 12, "maxCandidates": 6}
    first = await client.execute(WALK, variables)
    second = await client.execute(WALK, variables)
    assert "errors" not in first
    assert first == second


# --- the contract's documentation ----------------------------------------------------------


def test_every_walk_type_field_and_argument_has_a_description() -> None:
    schema = create_schema()._schema
    walk_field = schema.query_type.fields["walk"]  # type: ignore[union-attr]
    assert walk_field.description
    missing: Sequence[str] = [name for name, arg in walk_field.args.items() if not arg.description]
    assert missing == []
    for type_name in ("Edge", "WalkResult", "EdgeKind", "WalkBound"):
        graphql_type = schema.type_map[type_name]
        assert graphql_type.description, type_name
        members = getattr(graphql_type, "fields", None) or getattr(graphql_type, "values", {})
        assert members
        undocumented = [name for name, member in members.items() if not member.description]
        assert undocumented == [], type_name
