"""The paged fields and `Passage.mentions` judged against the scope oracle (./scope_oracle.py):
every entity's and passage's, in one request (aliases), and every edge's of one walk."""

from __future__ import annotations

from typing import Any

from tests.conftest import Client
from tests.support.scope_checks import ids
from tests.support.scope_oracle import Oracle
from tests.support.scope_world import World

PAGE = "{ nodes { id } pageInfo { hasNextPage } }"


def paged_query(world: World) -> str:
    fields = [
        f'n{i}: entity(id: "{e}", scope: $scope) {{ evidencePage(first: 100) {PAGE}'
        f" firstOnly: evidencePage(first: 1) {PAGE} }}"
        for i, e in enumerate(ids(world.entities, world))
    ]
    fields += [
        f'c{i}: passage(id: "{c}", scope: $scope) {{ mentions(limit: 50) {{ id }}'
        f" document {{ passages(first: 100) {PAGE} }} }}"
        for i, c in enumerate(ids(world.chunks, world))
    ]
    return "query Paged($scope: ScopeInput) { " + " ".join(fields) + " }"


def page(passage_ids: list[str], first: int = 100) -> dict[str, Any]:
    return {
        "nodes": [{"id": p} for p in passage_ids[:first]],
        "pageInfo": {"hasNextPage": len(passage_ids) > first},
    }


def mentioned_by(oracle: Oracle, chunk_id: str) -> list[dict[str, str]]:
    """The returnable entities mentioning the passage, by name then id."""
    entities = [
        e
        for e in oracle.world.entities.values()
        if chunk_id in e.mentions and oracle.returnable(e.id)
    ]
    return [{"id": e.id} for e in sorted(entities, key=lambda e: (e.name, e.id))]


def document_passages(oracle: Oracle, chunk_id: str) -> list[str]:
    """The visible passages of the passage's document, by position then id."""
    document_id = oracle.world.chunks[chunk_id].document_id
    chunks = [
        c
        for c in oracle.world.chunks.values()
        if c.document_id == document_id and oracle.visible(c.id)
    ]
    return [c.id for c in sorted(chunks, key=lambda c: (c.position, c.id))]


async def check_paged_fields(
    client: Client, headers: dict[str, str], world: World, scope: dict[str, Any], oracle: Oracle
) -> int:
    """Every entity's evidence pages and every passage's mentions and document pages, as the
    oracle allows; returns how many objects answered non-null."""
    body = await client.execute(paged_query(world), {"scope": scope}, headers)
    assert "errors" not in body, body
    data, answered = body["data"], 0
    for i, entity_id in enumerate(ids(world.entities, world)):
        if not oracle.returnable(entity_id):
            assert data[f"n{i}"] is None, ("entity", entity_id)
            continue
        evidence = oracle.evidence(entity_id)
        assert data[f"n{i}"] == {"evidencePage": page(evidence), "firstOnly": page(evidence, 1)}
        answered += 1
    for i, chunk_id in enumerate(ids(world.chunks, world)):
        if not oracle.visible(chunk_id):
            assert data[f"c{i}"] is None, ("passage", chunk_id)
            continue
        assert data[f"c{i}"] == {
            "mentions": mentioned_by(oracle, chunk_id),
            "document": {"passages": page(document_passages(oracle, chunk_id))},
        }, ("passage", chunk_id)
        answered += 1
    return answered


async def check_edge_pages(
    client: Client,
    headers: dict[str, str],
    world: World,
    scope: dict[str, Any],
    oracle: Oracle,
    start: str,
) -> int:
    """Every edge of a depth-2 walk from `start`: its evidence pages hold every visible
    supporting passage in scope, in evidence order; a PATH's are empty. Returns the edges."""
    query = (
        f'query($scope: ScopeInput) {{ walk(entityId: "{start}", scope: $scope, depth: 2)'
        f" {{ edges {{ id kind evidencePage(first: 100) {PAGE} }} }} }}"
    )
    body = await client.execute(query, {"scope": scope}, headers)
    if not oracle.supported(start):
        assert body["data"] is None
        return 0
    assert "errors" not in body, body
    relations = {r.id: r for r in world.relations}
    edges = body["data"]["walk"]["edges"]
    for edge in edges:
        relation = relations[edge["id"]]
        expected = [] if edge["kind"] == "PATH" else oracle.ordered(relation.passage_ids or ())
        assert edge["evidencePage"] == page(expected), ("edge", edge["id"])
    return len(edges)
