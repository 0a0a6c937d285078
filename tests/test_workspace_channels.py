"""What one workspace learns of another (issue 38 §5), through the doors a caller has: the entity
labels it is listed, the query-vector cache it can time, the persisted documents it can probe by
hash. Each is held to the caller's own workspaces; docs/security.md lists what stays shared.

Two workspaces: alpha's data has `Machine` and `Organization` entities, beta's only `Person`;
a `Person` of alpha's too, an unowned `Topic` entity mentioned from both (another pipeline's
shared entity, contract §2), and a `Draft` entity of beta's that no passage mentions.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from api.front_door.persisted_queries import sha256_hex
from embedding.hashing import HashEmbedder
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.lexical_index import fulltext_index_name
from graph.ownership import workspace_key
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.auth_material import bearer
from tests.support.graph_builder import GraphBuilder, unit_vector
from tests.support.mcp_sessions import http_session, structured

ALPHA_KEY = "alpha-reader-5e1f0a2b3c4d5e6f7a8b"
ALPHA_TOO_KEY = "alpha-second-reader-9d8c7b6a5f4e"  # another caller of the same grant
BETA_KEY = "beta-reader-0a1b2c3d4e5f6a7b8c9d"
BOTH_KEY = "both-reader-11223344556677889900"
KEYS = {
    ALPHA_KEY: ["alpha"],
    ALPHA_TOO_KEY: ["alpha"],
    BETA_KEY: ["beta"],
    BOTH_KEY: ["alpha", "beta"],
}

LABELS = "{ entityLabels { label fulltextIndex vectorIndex } }"
ONLINE = {"fulltextIndex": "ONLINE", "vectorIndex": "ONLINE"}


@pytest.fixture
async def keyed(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Client]:
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps(KEYS))
    async with serving(
        neo4j_uri, graph, AUTH_MODE="apikeys", AUTH_API_KEYS_FILE=str(keys_file)
    ) as client:
        yield client


@pytest.fixture
async def two_workspaces(builder: GraphBuilder, graph: Graph) -> GraphBuilder:
    await builder.version(
        "alpha",
        ["The Analytical Engine was built by Acme Works.", "Ada read about engines."],
        mentions={"Analytical Engine": [0], "Acme Works": [0], "Ada Lovelace": [1], "Engines": [1]},
        labels={
            "Analytical Engine": ["Machine"],
            "Acme Works": ["Organization"],
            "Ada Lovelace": ["Person"],
            "Engines": ["Topic"],
        },
    )
    await builder.version(
        "beta",
        ["Crick wrote about engines."],
        mentions={"Francis Crick": [0], "Engines": [0]},
        labels={"Francis Crick": ["Person"], "Engines": ["Topic"]},
    )
    # beta's own entity that no passage mentions (another pipeline's write): not returnable,
    # so its label is not beta's to list either.
    await graph.write(
        "CREATE (e:Entity:Draft {id: randomUUID(), name: 'Draft Engine', workspace: 'beta',"
        " workspaceKey: $key, embedding: $embedding})",
        {"key": workspace_key("beta"), "embedding": unit_vector(TEST_DIMENSION, 1)},
    )
    # An entity label with both indexes and no entity at all: nobody's to list.
    await apply_schema(
        graph,
        TEST_DIMENSION,
        labels=["Draft", "Empty", "Machine", "Organization", "Person", "Topic"],
    )
    return builder


def labels_of(body: dict[str, Any]) -> list[str]:
    assert "errors" not in body, body
    return [entry["label"] for entry in body["data"]["entityLabels"]]


async def test_entity_labels_list_only_the_labels_under_which_the_callers_grant_has_an_entity(
    keyed: Client, two_workspaces: GraphBuilder
) -> None:
    beta = await keyed.execute(LABELS, headers=bearer(BETA_KEY))
    assert beta["data"]["entityLabels"] == [
        {"label": "Person", **ONLINE},
        {"label": "Topic", **ONLINE},  # the shared entity: beta's passage mentions it
    ]
    alpha = await keyed.execute(LABELS, headers=bearer(ALPHA_KEY))
    assert labels_of(alpha) == ["Machine", "Organization", "Person", "Topic"]
    both = await keyed.execute(LABELS, headers=bearer(BOTH_KEY))
    assert labels_of(both) == ["Machine", "Organization", "Person", "Topic"]


async def test_every_workspace_granted_lists_every_label_with_an_entity_and_no_empty_one(
    client: Client, two_workspaces: GraphBuilder
) -> None:
    assert labels_of(await client.execute(LABELS)) == ["Machine", "Organization", "Person", "Topic"]


async def test_entity_labels_keep_the_index_states_of_the_labels_listed(
    keyed: Client, two_workspaces: GraphBuilder, graph: Graph
) -> None:
    await graph.write("DROP INDEX $name", {"name": fulltext_index_name("Person")})
    beta = await keyed.execute(LABELS, headers=bearer(BETA_KEY))
    assert beta["data"]["entityLabels"][0] == {
        "label": "Person",
        "fulltextIndex": "MISSING",
        "vectorIndex": "ONLINE",
    }


async def test_the_mcp_entity_labels_tool_lists_the_same_labels_as_the_graphql_field(
    keyed: Client, two_workspaces: GraphBuilder
) -> None:
    for key, expected in (
        (BETA_KEY, ["Person", "Topic"]),
        (ALPHA_KEY, ["Machine", "Organization", "Person", "Topic"]),
    ):
        async with http_session(keyed, key) as session:
            listed = structured(await session.call_tool("entity_labels", {}))
        assert [entry["label"] for entry in listed["labels"]] == expected
        graphql = await keyed.execute(LABELS, headers=bearer(key))
        assert listed["labels"] == graphql["data"]["entityLabels"]


async def test_entity_labels_cost_two_statements_however_many_labels(
    keyed: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("alpha", ["Ada."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    assert labels_of(await keyed.execute(LABELS, headers=bearer(ALPHA_KEY))) == ["Person"]
    one = len(keyed.statements)
    many = [f"Kind{n}" for n in range(6)]
    await builder.version(
        "alpha", ["Babbage."], mentions={name: [0] for name in many}, labels={n: [n] for n in many}
    )
    await apply_schema(graph, TEST_DIMENSION)
    assert labels_of(await keyed.execute(LABELS, headers=bearer(ALPHA_KEY))) == [*many, "Person"]
    assert len(keyed.statements) == one == 2, keyed.statements


SEARCH = "query($q: String!) { searchEntities(query: $q) { entity { id } } }"


async def test_a_cached_query_vector_is_shared_only_by_searches_of_the_same_workspaces(
    keyed: Client, two_workspaces: GraphBuilder
) -> None:
    """A cache hit skips the embedding, so it can be timed: beta's search must not find the
    vector alpha's search left, and alpha's must (the cache still works)."""
    queries = QueryEmbedder(HashEmbedder(TEST_DIMENSION))
    keyed.services.query_embedder = queries
    for key in (ALPHA_KEY, ALPHA_TOO_KEY, BETA_KEY):
        body = await keyed.execute(SEARCH, {"q": "acme merger talks"}, bearer(key))
        assert "errors" not in body, body
    # alpha's second caller reads the same workspace: a hit; beta's: computed again.
    assert (queries.stats.misses, queries.stats.hits) == (2, 1)


async def test_a_persisted_document_is_known_only_to_callers_of_the_grant_that_sent_it(
    keyed: Client, two_workspaces: GraphBuilder
) -> None:
    """A hash alone is answered only when a caller of the same grant sent the text: another
    workspace's caller cannot tell whether anyone sent it (a literal may be a search)."""
    query = '{ searchEntities(query: "acme merger talks", mode: LEXICAL) { entity { id } } }'
    by_hash = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(query)}}
    taught = await keyed.http.post(
        "/graphql", json={"query": query, "extensions": by_hash}, headers=bearer(ALPHA_KEY)
    )
    assert "errors" not in taught.json(), taught.json()
    for key, known in ((BETA_KEY, False), (BOTH_KEY, False), (ALPHA_TOO_KEY, True)):
        probe = await keyed.http.post("/graphql", json={"extensions": by_hash}, headers=bearer(key))
        errors = probe.json().get("errors") or []
        assert [e["extensions"]["code"] for e in errors] == (
            [] if known else ["PERSISTED_QUERY_NOT_FOUND"]
        ), (key, probe.json())
