"""The paged fields a UI reads (`Entity.evidencePage`, `Edge.evidencePage`,
`Document.passages`) and `Passage.mentions`, executed as GraphQL operations on the real Neo4j:
paging reads every visible passage exactly once and in order, hidden, superseded and unfinished
passages never appear, cursors are stable while documents load, bad `first`/`after`/`limit`
are MALFORMED, and a request costs the same statements whatever the number of pages it asks."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

import pytest

from contract.page_cursor import document_cursor, evidence_cursor
from graph import mention_order
from graph.driver import Graph
from tests.conftest import Client
from tests.support.graph_builder import GraphBuilder, new_id
from tests.test_walk_round_trips import two_level_star, warm_up

ACME = {"workspaces": ["acme"]}

ENTITY_PAGE = """
query($id: ID!, $first: Int!, $after: String, $scope: ScopeInput) {
  entity(id: $id, scope: $scope) {
    evidencePage(first: $first, after: $after) {
      nodes { id position version document { id } }
      pageInfo { endCursor hasNextPage }
    }
  }
}
"""

DOCUMENT_PAGE = """
query($id: ID!, $first: Int!, $after: String, $scope: ScopeInput) {
  passage(id: $id, scope: $scope) {
    document {
      passages(first: $first, after: $after) {
        nodes { id position version }
        pageInfo { endCursor hasNextPage }
      }
    }
  }
}
"""

EDGE_PAGE = """
query($id: ID!, $first: Int!, $after: String) {
  walk(entityId: $id) {
    edges {
      id kind
      evidencePage(first: $first, after: $after) {
        nodes { id position }
        pageInfo { endCursor hasNextPage }
      }
    }
  }
}
"""

MENTIONS = """
query($id: ID!, $limit: Int!, $scope: ScopeInput) {
  passage(id: $id, scope: $scope) { mentions(limit: $limit) { id name } }
}
"""


async def read_pages(
    client: Client, query: str, variables: dict[str, Any], pick: Any, after: str | None = None
) -> list[dict[str, Any]]:
    """Every page from the one after `after` on, following `endCursor`: the passages in the
    order read. Each page but the last is full; the last says no page follows."""
    read: list[dict[str, Any]] = []
    while True:
        body = await client.execute(query, {**variables, "after": after})
        assert "errors" not in body, body
        page = pick(body["data"])
        read += page["nodes"]
        info = page["pageInfo"]
        assert info["endCursor"] == (None if not page["nodes"] else info["endCursor"])
        if not info["hasNextPage"]:
            return read
        assert len(page["nodes"]) == variables["first"] and info["endCursor"]
        after = info["endCursor"]


async def visible_in_evidence_order(graph: Graph, entity_id: str, workspace: str) -> list[str]:
    """The oracle: what the entity's evidence is, read plainly (every mention, sorted)."""
    rows = await graph.read(
        "MATCH (:Entity {id: $id})-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
        " WHERE d.workspace = $workspace AND c.version = d.currentVersion"
        " AND (c.jobId IS NULL OR EXISTS { MATCH (j:Job {id: c.jobId})"
        "  WHERE j.status = 'COMMITTED' })"
        " RETURN c.id AS id ORDER BY d.id, c.position, c.id",
        {"id": entity_id, "workspace": workspace},
    )
    return [row["id"] for row in rows]


async def scattered_entity(builder: GraphBuilder) -> tuple[str, dict[str, list[str]]]:
    """Ada, mentioned in three acme documents (one of them with a superseded version and an
    unfinished one), one failed version and one document of another workspace."""
    versions: dict[str, list[str]] = {"hidden": []}
    names: dict[str, Sequence[int]] = {"Ada": list(range(6))}
    first = await builder.version("acme", [f"Ada one {i}" for i in range(6)], mentions=names)
    versions["hidden"] += first.passage_ids  # superseded by the next version
    again = await builder.version(
        "acme",
        [f"Ada one again {i}" for i in range(7)],
        document_id=first.document_id,
        mentions={"Ada": list(range(7))},
    )
    running = await builder.version(
        "acme",
        ["Ada unfinished"],
        document_id=first.document_id,
        mentions={"Ada": [0]},
        commit=False,
    )
    failed = await builder.version("acme", ["Ada failed"], mentions={"Ada": [0]}, fail=True)
    other = await builder.version("zeta", ["Ada elsewhere"] * 3, mentions={"Ada": [0, 1, 2]})
    second = await builder.version(
        "acme", [f"Ada two {i}" for i in range(4)], mentions={"Ada": list(range(4))}
    )
    third = await builder.version("acme", ["Ada three", "no one"], mentions={"Ada": [0]})
    versions["hidden"] += running.passage_ids + failed.passage_ids + other.passage_ids
    versions["visible"] = again.passage_ids + second.passage_ids + third.passage_ids[:1]
    return builder.entity_id("Ada"), versions


@pytest.fixture(params=["plain", "in order"])
def mention_reads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each entity read both ways: every mention sorted, and through the order indexes."""
    if request.param == "in order":
        monkeypatch.setattr(mention_order, "DENSE_MENTIONS", 0)
    return str(request.param)


def evidence_of(data: dict[str, Any]) -> Any:
    return data["entity"]["evidencePage"]


@pytest.mark.parametrize("first", [1, 5, 100])
async def test_entity_pages_read_every_visible_passage_once_in_evidence_order(
    client: Client, builder: GraphBuilder, graph: Graph, mention_reads: str, first: int
) -> None:
    entity_id, passages = await scattered_entity(builder)
    variables = {"id": entity_id, "first": first, "scope": ACME}
    ids = [p["id"] for p in await read_pages(client, ENTITY_PAGE, variables, evidence_of)]
    assert ids == await visible_in_evidence_order(graph, entity_id, "acme")
    assert sorted(ids) == sorted(passages["visible"])
    assert not set(ids) & set(passages["hidden"])


FIRST_DOCUMENT = "00000000-0000-4000-8000-000000000000"
LAST_DOCUMENT = "ffffffff-ffff-4fff-bfff-ffffffffffff"


async def test_an_entity_page_after_a_cursor_starts_after_its_key_while_documents_load(
    client: Client, builder: GraphBuilder, graph: Graph, mention_reads: str
) -> None:
    """Cursors are sort keys, not offsets: a document loaded before the cursor's key is not
    read, one loaded after it is, and nothing that stayed visible is skipped or repeated."""
    entity_id, _ = await scattered_entity(builder)
    variables = {"id": entity_id, "first": 5, "scope": ACME}
    body = await client.execute(ENTITY_PAGE, {**variables, "after": None})
    page = evidence_of(body["data"])
    shown = [p["id"] for p in page["nodes"]]
    loaded = {
        document_id: await builder.version(
            "acme", ["Ada late"], document_id=document_id, mentions={"Ada": [0]}
        )
        for document_id in (FIRST_DOCUMENT, LAST_DOCUMENT)
    }
    rest = await read_pages(
        client, ENTITY_PAGE, variables, evidence_of, after=page["pageInfo"]["endCursor"]
    )
    now = await visible_in_evidence_order(graph, entity_id, "acme")
    assert [p["id"] for p in rest] == now[now.index(shown[-1]) + 1 :]
    assert rest[-1]["document"]["id"] == LAST_DOCUMENT
    assert all(p["document"]["id"] != FIRST_DOCUMENT for p in rest)
    before_the_key = loaded[FIRST_DOCUMENT].passage_ids
    assert shown + [p["id"] for p in rest] == [p for p in now if p not in before_the_key]


def passages_of(data: dict[str, Any]) -> Any:
    return data["passage"]["document"]["passages"]


@pytest.mark.parametrize("first", [1, 4, 100])
async def test_document_pages_read_its_current_visible_passages_once_by_position(
    client: Client, builder: GraphBuilder, first: int
) -> None:
    old = await builder.version("acme", [f"old {i}" for i in range(9)])
    current = await builder.version(
        "acme", [f"current {i}" for i in range(7)], document_id=old.document_id
    )
    unfinished = await builder.version(
        "acme", [f"unfinished {i}" for i in range(8)], document_id=old.document_id, commit=False
    )
    await builder.version("acme", ["failed"], document_id=old.document_id, fail=True)
    variables = {"id": current.passage_ids[3], "first": first, "scope": ACME}
    read = await read_pages(client, DOCUMENT_PAGE, variables, passages_of)
    assert [p["id"] for p in read] == current.passage_ids
    assert [p["position"] for p in read] == list(range(7))
    assert {p["version"] for p in read} == {2}
    assert not {p["id"] for p in read} & set(old.passage_ids + unfinished.passage_ids)


async def test_a_document_outside_the_passage_scope_shows_no_passages(
    client: Client, builder: GraphBuilder
) -> None:
    """The document keeps the scope its passage was found in: narrowed to another document,
    the passage is hidden, and with it everything reached through it."""
    version = await builder.version("acme", ["one", "two"])
    other = await builder.version("acme", ["three"])
    narrowed = {"workspaces": ["acme"], "documentIds": [other.document_id]}
    body = await client.execute(
        DOCUMENT_PAGE, {"id": version.passage_ids[0], "first": 5, "scope": narrowed}
    )
    assert body["data"] == {"passage": None}
    body = await client.execute(
        DOCUMENT_PAGE, {"id": version.passage_ids[0], "first": 5, "scope": {"workspaces": ["w9"]}}
    )
    assert body["data"] == {"passage": None}


def edges_of(data: dict[str, Any]) -> Any:
    [edge] = [e for e in data["walk"]["edges"] if e["kind"] == "ASSERTION"]
    return edge["evidencePage"]


@pytest.mark.parametrize("first", [1, 2, 100])
async def test_edge_pages_read_its_visible_supporting_passages_once_in_evidence_order(
    client: Client, builder: GraphBuilder, graph: Graph, first: int
) -> None:
    texts = [f"Ada knows Bob, says {i}" for i in range(6)]
    version = await builder.version(
        "acme",
        texts,
        mentions={"Ada": [0], "Bob": [0]},
        relations=[("Ada", "KNOWS", "Bob", [5, 1, 3, 0]), ("Ada", "MEETS", "Bob", None)],
    )
    read = await read_pages(
        client, EDGE_PAGE, {"id": builder.entity_id("Ada"), "first": first}, edges_of
    )
    assert [p["id"] for p in read] == [version.passage_ids[i] for i in (0, 1, 3, 5)]
    body = await client.execute(
        EDGE_PAGE, {"id": builder.entity_id("Ada"), "first": 3, "after": None}
    )
    [path] = [e for e in body["data"]["walk"]["edges"] if e["kind"] == "PATH"]
    assert path["evidencePage"] == {
        "nodes": [],
        "pageInfo": {"endCursor": None, "hasNextPage": False},
    }


async def test_an_edge_page_leaves_out_superseded_and_other_scopes_passages(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    """A relation may list passages of several documents (another pipeline's); only the
    visible ones in scope are paged."""
    kept = await builder.version("acme", ["Ada and Bob"], mentions={"Ada": [0], "Bob": [0]})
    stale = await builder.version("acme", ["Ada and Bob, first draft"])
    await builder.version("acme", ["Ada and Bob, final"], document_id=stale.document_id)
    away = await builder.version("zeta", ["Ada and Bob abroad"])
    listed = kept.passage_ids + stale.passage_ids + away.passage_ids
    await graph.write(
        "MATCH (a:Entity {id: $a}), (b:Entity {id: $b})"
        " CREATE (a)-[:KNOWS {id: $id, passageIds: $listed}]->(b)",
        {
            "a": builder.entity_id("Ada"),
            "b": builder.entity_id("Bob"),
            "id": new_id(),
            "listed": listed,
        },
    )
    body = await client.execute(
        """query($id: ID!) { walk(entityId: $id, scope: {workspaces: ["acme"]}) {
          edges { evidencePage(first: 10) { nodes { id } pageInfo { hasNextPage } } } } }""",
        {"id": builder.entity_id("Ada")},
    )
    [edge] = body["data"]["walk"]["edges"]
    assert edge["evidencePage"] == {
        "nodes": [{"id": kept.passage_ids[0]}],
        "pageInfo": {"hasNextPage": False},
    }


async def test_a_passage_lists_the_entities_it_mentions_by_name_then_id_up_to_the_limit(
    client: Client, builder: GraphBuilder
) -> None:
    names = ["Zoe", "ada", "Bob", "Ada", "Cy"]
    version = await builder.version(
        "acme", ["everyone", "no one"], mentions={name: [0] for name in names}
    )
    await builder.version("acme", ["Eve alone"], mentions={"Eve": [0]})
    variables = {"id": version.passage_ids[0], "scope": ACME}
    body = await client.execute(MENTIONS, {**variables, "limit": 50})
    expected = sorted(names, key=lambda n: (n, builder.entity_id(n)))
    assert [e["name"] for e in body["data"]["passage"]["mentions"]] == expected
    body = await client.execute(MENTIONS, {**variables, "limit": 2})
    assert [e["name"] for e in body["data"]["passage"]["mentions"]] == expected[:2]
    body = await client.execute(MENTIONS, {**variables, "limit": 0})
    assert body["data"]["passage"]["mentions"] == []
    body = await client.execute(MENTIONS, {"id": version.passage_ids[1], "limit": 5})
    assert body["data"]["passage"]["mentions"] == []


async def test_an_entity_mentioned_from_another_workspace_is_listed_only_where_returnable(
    client: Client, builder: GraphBuilder
) -> None:
    """An unowned entity mentioned by passages of two workspaces: the passage lists it, and
    only in a scope where one of its mentions is."""
    version = await builder.version("acme", ["Ada here"], mentions={"Ada": [0]})
    await builder.version("zeta", ["Ada there"], mentions={"Ada": [0]})
    body = await client.execute(MENTIONS, {"id": version.passage_ids[0], "limit": 5})
    assert [e["name"] for e in body["data"]["passage"]["mentions"]] == ["Ada"]
    narrowed = {"workspaces": ["zeta"]}
    body = await client.execute(
        MENTIONS, {"id": version.passage_ids[0], "limit": 5, "scope": narrowed}
    )
    assert body["data"]["passage"] is None


# --- arguments -------------------------------------------------------------------------------


def forged(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode()


PASSAGE_ID = "1c7e2a90-5b3d-4e8f-8a1b-2d3c4e5f6a7b"
BAD_AFTER = [
    "garbage",
    "",
    "x" * 10_000,
    evidence_cursor((FIRST_DOCUMENT, 0, PASSAGE_ID))[:-2],  # cut short
    evidence_cursor((FIRST_DOCUMENT, 0, PASSAGE_ID)).lower(),  # tampered
    "another field's",  # replaced by a cursor the field's own order does not write
    forged(["evidence", FIRST_DOCUMENT, "0", PASSAGE_ID]),  # a position that is no integer
    forged(["evidence", FIRST_DOCUMENT, True, PASSAGE_ID]),
    forged(["evidence", FIRST_DOCUMENT, 2**63, PASSAGE_ID]),
    forged(["evidence", "' OR 1=1 //", 0, PASSAGE_ID]),
    forged({"evidence": FIRST_DOCUMENT}),
    "\u0000\u202e",
]


@pytest.mark.parametrize("after", BAD_AFTER)
async def test_every_paged_field_refuses_an_after_it_did_not_issue_as_malformed(
    client: Client, builder: GraphBuilder, after: str
) -> None:
    version = await builder.version(
        "acme",
        ["Ada and Bob"],
        mentions={"Ada": [0], "Bob": [0]},
        relations=[("Ada", "KNOWS", "Bob", [0])],
    )
    ada = builder.entity_id("Ada")
    others = {
        ENTITY_PAGE: document_cursor((0, PASSAGE_ID)),
        DOCUMENT_PAGE: evidence_cursor((FIRST_DOCUMENT, 0, PASSAGE_ID)),
        EDGE_PAGE: document_cursor((0, PASSAGE_ID)),
    }
    for query, variables in (
        (ENTITY_PAGE, {"id": ada, "first": 3}),
        (DOCUMENT_PAGE, {"id": version.passage_ids[0], "first": 3}),
        (EDGE_PAGE, {"id": ada, "first": 3}),
    ):
        sent = others[query] if after == "another field's" else after
        body = await client.execute(query, {**variables, "after": sent})
        [error] = body["errors"]
        assert error["extensions"]["code"] == "MALFORMED", (query, sent, body)
        assert "`after`" in error["message"]


@pytest.mark.parametrize("first", [0, -1, 101, 2**31 - 1])
async def test_every_paged_field_refuses_a_first_out_of_range_naming_it(
    client: Client, builder: GraphBuilder, first: int
) -> None:
    version = await builder.version(
        "acme",
        ["Ada and Bob"],
        mentions={"Ada": [0], "Bob": [0]},
        relations=[("Ada", "KNOWS", "Bob", [0])],
    )
    ada = builder.entity_id("Ada")
    for query, variables in (
        (ENTITY_PAGE, {"id": ada}),
        (DOCUMENT_PAGE, {"id": version.passage_ids[0]}),
        (EDGE_PAGE, {"id": ada}),
    ):
        body = await client.execute(query, {**variables, "first": first, "after": None})
        [error] = body["errors"]
        assert error["extensions"]["code"] == "MALFORMED", body
        assert "`first`" in error["message"] and "between 1 and 100" in error["message"]


@pytest.mark.parametrize("limit", [-1, 51])
async def test_mentions_refuses_a_limit_out_of_range_naming_it(
    client: Client, builder: GraphBuilder, limit: int
) -> None:
    version = await builder.version("acme", ["Ada"], mentions={"Ada": [0]})
    body = await client.execute(MENTIONS, {"id": version.passage_ids[0], "limit": limit})
    [error] = body["errors"]
    assert error["extensions"]["code"] == "MALFORMED"
    assert "`limit`" in error["message"] and "between 0 and 50" in error["message"]


# --- round trips -----------------------------------------------------------------------------

EVERY_PAGE = """
query($id: ID!, $depth: Int!) {
  walk(entityId: $id, depth: $depth) {
    nodes {
      evidencePage(first: 2) {
        nodes { id mentions(limit: 3) { name } document { passages(first: 2) { nodes { id } } } }
        pageInfo { endCursor hasNextPage }
      }
    }
    edges { evidencePage(first: 2) { nodes { id } pageInfo { hasNextPage } } }
  }
}
"""


@pytest.mark.parametrize(
    ("fields", "added"),
    [
        ("", 0),
        ("evidencePage", 1),
        ("evidencePage mentions", 2),
        ("evidencePage document", 2),
        ("edges", 1),
        ("everything", 4),
    ],
)
async def test_pages_cost_one_statement_per_field_whatever_the_number_of_entities(
    client: Client, builder: GraphBuilder, fields: str, added: int
) -> None:
    """A walk of 3 or of 21 entities: each paged field selected adds one statement, for all
    its entities, edges, passages and documents together (contract §6 round trips)."""
    query = {
        "": "query($id: ID!, $depth: Int!) { walk(entityId: $id, depth: $depth) { nodes { id } } }",
        "evidencePage": "query($id: ID!, $depth: Int!) { walk(entityId: $id, depth: $depth) {"
        " nodes { evidencePage(first: 2) { nodes { id } } } } }",
        "evidencePage mentions": "query($id: ID!, $depth: Int!) { walk(entityId: $id,"
        " depth: $depth) { nodes { evidencePage(first: 2) { nodes { mentions { id } } } } } }",
        "evidencePage document": "query($id: ID!, $depth: Int!) { walk(entityId: $id,"
        " depth: $depth) { nodes { evidencePage(first: 2) { nodes { document {"
        " passages(first: 2) { nodes { id } } } } } } } }",
        "edges": "query($id: ID!, $depth: Int!) { walk(entityId: $id, depth: $depth) {"
        " edges { evidencePage(first: 2) { nodes { id } } } } }",
        "everything": EVERY_PAGE,
    }[fields]
    small = await two_level_star(builder, 2)
    builder.entity_ids.clear()
    large = await two_level_star(builder, 20)
    await warm_up(client, small)
    counts = []
    for start in (small, large):
        body = await client.execute(query, {"id": start, "depth": 1})
        assert "errors" not in body, body
        counts.append(len(client.statements))
    walk_alone = 2  # first step and depth probe (tests/test_walk_round_trips.py)
    assert counts == [walk_alone + added] * 2, client.statements
