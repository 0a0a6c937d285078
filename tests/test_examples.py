"""The client operations of `examples/`, as a web UI would send them, executed against real
data: each returns what its comment promises, in a fixed number of database reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphql import build_schema, parse, validate

from api.schema import schema_sdl
from graph import lookups
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION, Client
from tests.support.graph_builder import GraphBuilder, Version, unit_vector

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


async def engine_notes(builder: GraphBuilder, graph: Graph) -> Version:
    version = await builder.version(
        "acme",
        [
            "Ada Lovelace worked with Charles Babbage on the Analytical Engine.",
            "Ada Lovelace wrote the first published algorithm.",
            "The Analytical Engine was never finished.",
        ],
        title="Notes on the Analytical Engine",
        mentions={"Ada Lovelace": [0, 1], "Charles Babbage": [0], "Analytical Engine": [2]},
        labels={"Analytical Engine": ["Machine"]},
        vectors={"Ada Lovelace": unit_vector(TEST_DIMENSION, 0)},
        relations=[
            ("Ada Lovelace", "WORKED_WITH", "Charles Babbage", [0]),
            ("Charles Babbage", "DESIGNED", "Analytical Engine", None),
        ],
    )
    await apply_schema(graph, TEST_DIMENSION)
    return version


def test_every_example_is_tested_here() -> None:
    assert sorted(path.name for path in EXAMPLES.glob("*.graphql")) == [
        "entity-detail.graphql",
        "search-with-evidence.graphql",
        "walk-with-evidence.graphql",
    ]


async def test_search_with_evidence(client: Client, builder: GraphBuilder, graph: Graph) -> None:
    notes = await engine_notes(builder, graph)
    client.embedder.script("Ada Lovelace", unit_vector(TEST_DIMENSION, 0))
    body = await client.execute(example("search-with-evidence.graphql"), {"query": "Ada Lovelace"})
    assert "errors" not in body, body
    top = body["data"]["searchEntities"][0]
    assert top["entity"]["name"] == "Ada Lovelace"
    assert top["status"] == "SUPPORTED"
    assert [p["id"] for p in top["evidence"]] == notes.passage_ids[:2]
    assert top["evidence"][1]["text"] == "Ada Lovelace wrote the first published algorithm."
    assert top["evidence"][0]["document"]["title"] == "Notes on the Analytical Engine"
    assert len(client.statements) == 2  # the index catalog, the search (with its evidence)


async def test_entity_detail(client: Client, builder: GraphBuilder, graph: Graph) -> None:
    notes = await engine_notes(builder, graph)
    body = await client.execute(
        example("entity-detail.graphql"), {"id": builder.entity_id("Ada Lovelace")}
    )
    assert "errors" not in body, body
    entity: dict[str, Any] = body["data"]["entity"]
    assert (entity["name"], entity["labels"]) == ("Ada Lovelace", ["Person"])
    assert [p["id"] for p in entity["evidence"]] == notes.passage_ids[:2]
    assert entity["evidence"][0]["document"]["currentVersion"] == 1
    assert client.statements == [lookups.ENTITIES_BY_ID, lookups.EVIDENCE_BY_ENTITY_ID]


def test_the_walk_example_is_valid_against_the_schema() -> None:
    schema = build_schema(schema_sdl(), assume_valid_sdl=True)
    assert validate(schema, parse(example("walk-with-evidence.graphql"))) == []


async def test_walk_with_evidence(client: Client, builder: GraphBuilder, graph: Graph) -> None:
    notes = await engine_notes(builder, graph)
    ada, charles, engine = (
        builder.entity_id(name) for name in ("Ada Lovelace", "Charles Babbage", "Analytical Engine")
    )
    body = await client.execute(
        example("walk-with-evidence.graphql"), {"entityId": ada, "depth": 2}
    )
    assert "errors" not in body, body
    walk = body["data"]["walk"]
    assert walk["start"]["id"] == ada
    assert {node["id"] for node in walk["nodes"]} == {ada, charles, engine}
    edges = {edge["type"]: edge for edge in walk["edges"]}
    assert set(edges) == {"WORKED_WITH", "DESIGNED"}
    worked_with, designed = edges["WORKED_WITH"], edges["DESIGNED"]
    assert (worked_with["kind"], worked_with["depth"]) == ("ASSERTION", 1)
    assert (worked_with["source"]["id"], worked_with["target"]["id"]) == (ada, charles)
    assert [p["id"] for p in worked_with["evidence"]] == notes.passage_ids[:1]
    assert worked_with["evidence"][0]["document"]["title"] == "Notes on the Analytical Engine"
    assert (designed["kind"], designed["depth"], designed["evidence"]) == ("PATH", 2, [])
    assert (designed["source"]["id"], designed["target"]["id"]) == (charles, engine)
    assert walk["truncatedBy"] == []
