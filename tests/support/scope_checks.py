"""The operations the scope properties send, and how each answer is judged against the oracle
(./scope_oracle.py): the scoped root fields in one request (aliases), one walk (and, when
its start is hidden, the same walk from a missing id), and `_entities` for every id."""

from __future__ import annotations

from typing import Any

from tests.conftest import Client, without_request_ids
from tests.support.scope_oracle import Oracle
from tests.support.scope_world import WORD, World

MODES = ("LEXICAL", "SEMANTIC", "HYBRID")
PASSAGE = (
    "fragment P on Passage { id text position version document { id workspace currentVersion } }"
)
ENTITY = "fragment E on Entity { id name labels evidence(limit: 10) { ...P } }"
HIT = (
    "fragment H on EntityHit { entity { ...E } status lexicalRank semanticRank"
    " evidenceIds evidence { ...P } }"
)
WALK = (
    "{ start { id } nodes { ...E } truncatedBy edges { id type kind depth"
    " source { id } target { id } evidenceIds evidence { ...P } } }"
)
SEARCH = f'query: "{WORD}", scope: $scope, limit: 100'


def passage_view(world: World, chunk_id: str) -> dict[str, Any]:
    chunk = world.chunks[chunk_id]
    document = world.documents[chunk.document_id]
    return {
        "id": chunk.id,
        "text": chunk.text,
        "position": chunk.position,
        "version": chunk.version,
        "document": {
            "id": document.id,
            "workspace": document.workspace,
            "currentVersion": document.current_version,
        },
    }


def entity_view(oracle: Oracle, entity_id: str) -> dict[str, Any]:
    entity = oracle.world.entities[entity_id]
    return {
        "id": entity.id,
        "name": entity.name,
        "labels": sorted(entity.labels),
        "evidence": [passage_view(oracle.world, c) for c in oracle.evidence(entity_id)],
    }


def shown(entity: dict[str, Any] | None) -> dict[str, Any] | None:
    """An entity as answered, its labels in a stable order."""
    return entity and {**entity, "labels": sorted(entity["labels"])}


def check_ranks(hits: list[dict[str, Any]], mode: str) -> None:
    """Ranks are 1..n among what the caller may see: nothing hidden shifts them (contract §3)."""
    for rank, ranked_in in (
        ("lexicalRank", ("LEXICAL", "HYBRID")),
        ("semanticRank", ("SEMANTIC", "HYBRID")),
    ):
        values = [hit[rank] for hit in hits]
        expected = list(range(1, len(hits) + 1)) if mode in ranked_in else [None] * len(hits)
        assert sorted(values, key=lambda v: v or 0) == expected, (mode, rank, values)


def scoped_query(world: World, mode: str) -> str:
    fields = [
        f"hits: searchEntities({SEARCH}, mode: {mode}, supportLimit: 10) {{ ...H }}",
        f"passages: searchPassages({SEARCH}, mode: {mode})"
        " { passage { ...P } lexicalRank semanticRank }",
    ]
    fields += [
        f'n{i}: entity(id: "{e}", scope: $scope) {{ ...E }}'
        for i, e in enumerate(ids(world.entities, world))
    ]
    fields += [
        f'c{i}: passage(id: "{c}", scope: $scope) {{ ...P }}'
        for i, c in enumerate(ids(world.chunks, world))
    ]
    return "query Scoped($scope: ScopeInput) { " + " ".join(fields) + " } " + PASSAGE + ENTITY + HIT


def ids(found: dict[str, Any], world: World) -> list[str]:
    return [*found, world.missing_id]


async def check_scoped_fields(
    client: Client,
    headers: dict[str, str],
    world: World,
    scope: dict[str, Any],
    oracle: Oracle,
    mode: str,
) -> int:
    """Both searches in `mode`, and `entity`/`passage` for every id of the world and a missing
    one; returns how many hits were checked."""
    body = await client.execute(scoped_query(world, mode), {"scope": scope}, headers)
    assert "errors" not in body, body
    data = body["data"]
    for i, entity_id in enumerate(ids(world.entities, world)):
        expected = entity_view(oracle, entity_id) if oracle.returnable(entity_id) else None
        assert shown(data[f"n{i}"]) == expected, ("entity", entity_id)
    for i, chunk_id in enumerate(ids(world.chunks, world)):
        expected = passage_view(world, chunk_id) if oracle.visible(chunk_id) else None
        assert data[f"c{i}"] == expected, ("passage", chunk_id)
    # The searched word is in every name and text, and `limit` exceeds the world, so every
    # entity and passage the caller may see is found, in every mode.
    hits = data["hits"]
    returnable = sorted(e for e in world.entities if oracle.returnable(e))
    assert sorted(hit["entity"]["id"] for hit in hits) == returnable, mode
    for hit in hits:
        entity_id = hit["entity"]["id"]
        evidence = oracle.evidence(entity_id)
        assert shown(hit["entity"]) == entity_view(oracle, entity_id)
        assert hit["status"] == ("SUPPORTED" if evidence else "UNSUPPORTED")
        assert hit["evidenceIds"] == evidence
        assert hit["evidence"] == [passage_view(world, c) for c in evidence]
    check_ranks(hits, mode)
    passages = data["passages"]
    visible = sorted(c for c in world.chunks if oracle.visible(c))
    assert sorted(hit["passage"]["id"] for hit in passages) == visible, mode
    assert all(hit["passage"] == passage_view(world, hit["passage"]["id"]) for hit in passages)
    check_ranks(passages, mode)
    return len(hits) + len(passages)


def walk_query(start: str, depth: int) -> str:
    return (
        f'query Walk($scope: ScopeInput, $types: [String!]) {{ walk(entityId: "{start}",'
        f" scope: $scope, depth: {depth}, relationTypes: $types) {WALK} }} " + PASSAGE + ENTITY
    )


async def check_walk(
    client: Client,
    headers: dict[str, str],
    world: World,
    scope: dict[str, Any],
    oracle: Oracle,
    start: str,
    depth: int,
    relation_types: list[str] | None = None,
) -> bool:
    """One walk from `start` (along `relation_types`: the oracle's world holds only those);
    a hidden start must answer exactly as the missing id does. Returns whether the walk was
    available."""
    want = oracle.walk(start, depth) if start in world.entities else None
    variables = {"scope": scope, "types": relation_types}
    body = await client.execute(walk_query(start, depth), variables, headers)
    if want is None:
        missing_walk = walk_query(world.missing_id, depth)
        missing = await client.execute(missing_walk, variables, headers)
        assert without_request_ids(body) == without_request_ids(missing), (body, missing)
        assert body["data"] is None and without_request_ids(body["errors"][0]["extensions"]) == {
            "code": "UNAVAILABLE"
        }
        return False
    assert "errors" not in body, body
    walk, relations = body["data"]["walk"], {r.id: r for r in world.relations}
    assert walk["start"]["id"] == start
    assert {n["id"] for n in walk["nodes"]} == want["nodes"], "nodes"
    assert all(shown(n) == entity_view(oracle, n["id"]) for n in walk["nodes"])
    edges = {e["id"]: (e["kind"], e["evidenceIds"], e["depth"]) for e in walk["edges"]}
    assert edges == want["edges"], "edges"
    for edge in walk["edges"]:
        relation = relations[edge["id"]]
        ends = (edge["source"]["id"], edge["target"]["id"])
        assert (ends, edge["type"]) == ((relation.source, relation.target), relation.type)
        assert edge["evidence"] == [passage_view(world, c) for c in edge["evidenceIds"]]
    assert walk["truncatedBy"] == (["DEPTH"] if want["depth_cut"] else [])
    return True


async def check_forbidden(
    client: Client, headers: dict[str, str], world: World, scope: dict[str, Any]
) -> None:
    """Naming an ungranted workspace is FORBIDDEN in every scoped field, and shows nothing."""
    some_entity, some_chunk = next(iter(world.entities)), next(iter(world.chunks), world.missing_id)
    for field in (
        f"searchEntities({SEARCH}) {{ entity {{ id }} }}",
        f"searchPassages({SEARCH}) {{ passage {{ id }} }}",
        f'entity(id: "{some_entity}", scope: $scope) {{ id }}',
        f'passage(id: "{some_chunk}", scope: $scope) {{ id }}',
        f'walk(entityId: "{some_entity}", scope: $scope) {{ nodes {{ id }} }}',
    ):
        body = await client.execute(
            f"query($scope: ScopeInput) {{ {field} }}", {"scope": scope}, headers
        )
        assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"], body
        assert all(value is None for value in (body.get("data") or {}).values()), body


async def check_federation(
    client: Client, headers: dict[str, str], world: World, oracle: Oracle
) -> None:
    """`_entities` applies the caller's whole grant; hidden and missing are both null."""
    wanted: list[tuple[dict[str, str], dict[str, Any] | None]] = []
    for entity_id in ids(world.entities, world):
        view = entity_view(oracle, entity_id) if oracle.returnable(entity_id) else None
        wanted.append(
            ({"__typename": "Entity", "id": entity_id}, view and {"__typename": "Entity", **view})
        )
    for chunk_id in ids(world.chunks, world):
        view = passage_view(world, chunk_id) if oracle.visible(chunk_id) else None
        wanted.append(
            ({"__typename": "Passage", "id": chunk_id}, view and {"__typename": "Passage", **view})
        )
    for document_id in ids(world.documents, world):
        document = world.documents.get(document_id)
        view = None
        if document is not None and oracle.document_visible(document_id):
            view = {
                "__typename": "Document",
                "id": document.id,
                "workspace": document.workspace,
                "currentVersion": document.current_version,
            }
        wanted.append(({"__typename": "Document", "id": document_id}, view))
    query = (
        "query F($r: [_Any!]!) { _entities(representations: $r) { __typename"
        " ... on Entity { ...E } ... on Passage { ...P }"
        " ... on Document { id workspace currentVersion } } } " + PASSAGE + ENTITY
    )
    body = await client.execute(query, {"r": [rep for rep, _ in wanted]}, headers)
    assert "errors" not in body, body
    answers = body["data"]["_entities"]
    for (representation, expected), answer in zip(wanted, answers, strict=True):
        if answer is not None and answer["__typename"] == "Entity":
            answer = shown(answer)
        assert answer == expected, representation
