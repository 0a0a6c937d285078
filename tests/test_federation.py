"""The service as a Federation 2 subgraph, in process: `_service { sdl }` is the exported
schema, and `_entities` resolves 100 references of a type with one read of that type (contract §6:
round trips do not grow with the number of references), under the caller's scope (contract §8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graph import lookups
from graph.driver import Graph
from tests.conftest import Client
from tests.support.graph_builder import GraphBuilder, new_id

REPOSITORY = Path(__file__).resolve().parents[1]

ENTITIES = """
query($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Entity { id name }
    ... on Passage { id text }
    ... on Document { id title }
  }
}
"""


LOOKUPS = {
    getattr(lookups, name): name
    for name in ("ENTITIES_BY_ID", "PASSAGES_BY_ID", "DOCUMENTS_BY_ID", "EVIDENCE_BY_ENTITY_ID")
}


def lookups_run(statements: list[str]) -> list[str]:
    """The named lookup each statement is (the statement's start when it is none of them)."""
    return [LOOKUPS.get(statement, statement[:80]) for statement in statements]


async def hundred_of_each(builder: GraphBuilder) -> dict[str, list[str]]:
    names = [f"Ref {i:03d}" for i in range(100)]
    documents, passages = [], []
    for start in range(0, 100, 10):  # 10 documents of 10 passages
        version = await builder.version(
            "acme",
            [f"{name} is mentioned here." for name in names[start : start + 10]],
            mentions={name: [i] for i, name in enumerate(names[start : start + 10])},
        )
        documents.append(version.document_id)
        passages.extend(version.passage_ids)
    return {
        "Entity": [builder.entity_id(name) for name in names],
        "Passage": passages,
        "Document": documents * 10,  # repeated keys are fine; they are read once
    }


async def test_service_sdl_is_the_exported_schema(client: Client) -> None:
    body = await client.execute("{ _service { sdl } }")
    assert body["data"]["_service"]["sdl"] + "\n" == (REPOSITORY / "schema.graphql").read_text()
    assert client.statements == []


async def test_100_references_of_each_type_cost_one_read_per_type(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    ids = await hundred_of_each(builder)
    for typename, keys in ids.items():
        representations = [{"__typename": typename, "id": key} for key in keys]
        body = await client.execute(ENTITIES, {"representations": representations})
        assert "errors" not in body, body
        found = body["data"]["_entities"]
        assert [item["id"] for item in found] == keys, typename
        assert len(client.statements) == 1, (typename, lookups_run(client.statements))
        assert client.parameters[0]["keys"] == list(dict.fromkeys(keys))

    # All three types in one request: one read per type, whatever the number of references.
    mixed = [{"__typename": t, "id": key} for t, keys in ids.items() for key in keys]
    body = await client.execute(ENTITIES, {"representations": mixed})
    assert len(body["data"]["_entities"]) == 300
    assert sorted(lookups_run(client.statements)) == [
        "DOCUMENTS_BY_ID",
        "ENTITIES_BY_ID",
        "PASSAGES_BY_ID",
    ]


async def test_nested_evidence_of_100_references_costs_two_more_reads(
    client: Client, builder: GraphBuilder
) -> None:
    ids = await hundred_of_each(builder)
    body = await client.execute(
        """query($representations: [_Any!]!) {
             _entities(representations: $representations) {
               ... on Entity { name evidence { text document { title } } }
             }
           }""",
        {"representations": [{"__typename": "Entity", "id": key} for key in ids["Entity"]]},
    )
    found: list[dict[str, Any]] = body["data"]["_entities"]
    assert [item["evidence"][0]["text"] for item in found] == [
        f"{item['name']} is mentioned here." for item in found
    ]
    # Entities, then their evidence passages (each carrying its document).
    assert lookups_run(client.statements) == ["ENTITIES_BY_ID", "EVIDENCE_BY_ENTITY_ID"]


async def test_hidden_and_missing_references_are_null_alike(
    client: Client, builder: GraphBuilder
) -> None:
    acme = await builder.version("acme", ["Visible Vera."], mentions={"Visible Vera": [0]})
    # A version still being written: its passages are not current, its document has no
    # committed version yet.
    running = await builder.version("acme", ["Draft text."], commit=False)
    representations = [
        {"__typename": "Entity", "id": builder.entity_id("Visible Vera")},
        {"__typename": "Entity", "id": new_id()},
        {"__typename": "Passage", "id": acme.passage_ids[0]},
        {"__typename": "Passage", "id": running.passage_ids[0]},
        {"__typename": "Passage", "id": new_id()},
        {"__typename": "Document", "id": acme.document_id},
        {"__typename": "Document", "id": running.document_id},
        {"__typename": "Document", "id": new_id()},
    ]
    body = await client.execute(ENTITIES, {"representations": representations})
    assert "errors" not in body, body
    found = body["data"]["_entities"]
    assert [item and item["id"] for item in found] == [
        builder.entity_id("Visible Vera"),
        None,
        acme.passage_ids[0],
        None,
        None,
        acme.document_id,
        None,
        None,
    ]


async def test_malformed_representations_are_malformed_not_internal(client: Client) -> None:
    """`_Any` takes any JSON: what Strawberry could not resolve is refused first, by index."""
    good = {"__typename": "Entity", "id": new_id()}
    for bad in (
        "just a string",
        {"id": new_id()},
        {"__typename": "Entity"},
        {"__typename": "EntityHit", "id": new_id()},
        {"__typename": "Query", "id": new_id()},
        {"__typename": "Entity", "id": 7},
        {"__typename": "Entity", "id": new_id(), "name": "extra"},
    ):
        body = await client.execute(ENTITIES, {"representations": [good, bad]})
        (error,) = body["errors"]
        assert error["extensions"]["code"] == "MALFORMED", (bad, body)
        assert "representations[1]" in error["message"]
    body = await client.execute(ENTITIES, {"representations": [good] * 1001})
    assert "at most 1000" in body["errors"][0]["message"]
    assert client.statements == []  # refused before any read
