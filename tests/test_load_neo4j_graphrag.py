"""`evidencegraph load --format neo4j-graphrag --from bolt://…`: the graph neo4j-graphrag's own
`SimpleKGPipeline` writes (a scripted model, tests/support/kg_pipeline.py) into the source
server, imported, searched and walked, on the real Neo4j.

The pipeline runs once per module (a few seconds); a test that changes the source puts it back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import neo4j
import pytest

from contract.identifiers import workspace_id
from embedding.hashing import HashEmbedder
from graph.driver import Graph
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.kg_pipeline import ScriptedLLM, run_pipeline
from tests.support.load_helpers import Cli, graph_counts
from tests.support.source_server import source_snapshot, wipe_source

SENTENCES = (
    "Ebenezer Scrooge kept a counting-house in London with his partner Jacob Marley.",
    "Bob Cratchit was the clerk of Scrooge and lived with his family in Camden Town.",
    "The ghost of Marley visited Scrooge on Christmas Eve, bound in chains of cash-boxes.",
)
CHUNK = 100  # each sentence is one chunk of the pipeline's FixedSizeSplitter
TEXT = "".join(sentence.ljust(CHUNK) for sentence in SENTENCES)
SCHEMA: dict[str, Any] = {
    "node_types": ["Person", "Place"],
    "relationship_types": ["PARTNER_OF", "WORKED_IN", "WORKED_FOR", "LIVED_IN", "VISITED"],
}


def node(key: str, label: str, name: str) -> dict[str, Any]:
    return {"id": key, "label": label, "properties": {"name": name}}


def edge(kind: str, start: str, end: str) -> dict[str, Any]:
    return {"type": kind, "start_node_id": start, "end_node_id": end, "properties": {}}


# What a model answers for each chunk (neo4j-graphrag's prompt asks for this JSON).
ANSWERS = {
    SENTENCES[0]: {
        "nodes": [
            node("0", "Person", "Ebenezer Scrooge"),
            node("1", "Person", "Jacob Marley"),
            node("2", "Place", "London"),
        ],
        "relationships": [edge("PARTNER_OF", "0", "1"), edge("WORKED_IN", "0", "2")],
    },
    SENTENCES[1]: {
        "nodes": [
            node("0", "Person", "Bob Cratchit"),
            node("1", "Person", "Ebenezer Scrooge"),
            node("2", "Place", "Camden Town"),
        ],
        "relationships": [edge("WORKED_FOR", "0", "1"), edge("LIVED_IN", "0", "2")],
    },
    SENTENCES[2]: {
        "nodes": [node("0", "Person", "Jacob Marley"), node("1", "Person", "Ebenezer Scrooge")],
        "relationships": [edge("VISITED", "0", "1")],
    },
}
SCROOGE = workspace_id("acme", "Ebenezer Scrooge", "entity:Person")

SEARCH = """
query ($query: String!) {
  searchEntities(query: $query, limit: 3) {
    entity { id name labels }
    status
    evidence { text position document { title } }
  }
}
"""
WALK = """
query ($id: ID!) {
  walk(entityId: $id) {
    edges { type kind source { name } target { name } evidence { text } }
  }
}
"""


@pytest.fixture
async def patient_client(neo4j_uri: str, graph: Graph) -> AsyncIterator[Client]:
    """The app, with a request time limit a loaded machine cannot reach: what is asserted is
    the answers, never how long they took."""
    async with serving(neo4j_uri, graph, REQUEST_TIMEOUT_SECONDS="600") as client:
        yield client


@pytest.fixture(scope="module")
async def pipeline(source_server: str, source_driver: neo4j.AsyncDriver) -> AsyncIterator[str]:
    """The source holding what SimpleKGPipeline wrote from TEXT; emptied after the module."""
    await wipe_source(source_driver)
    llm: ScriptedLLM = await run_pipeline(
        source_server, TEXT, ANSWERS, schema=SCHEMA, file_path="carol.txt", chunk_size=CHUNK
    )
    assert len(llm.prompts) == len(SENTENCES)  # the model was asked once per chunk
    yield source_server
    await wipe_source(source_driver)


async def load(cli: Cli, source: str, workspace: str = "acme") -> tuple[int, str, str]:
    run = await cli.run(
        "load", "--format", "neo4j-graphrag", "--workspace", workspace, "--from", source
    )
    return run.code, run.out, run.err


async def pipeline_chunks(driver: neo4j.AsyncDriver) -> list[str]:
    records, _, _ = await driver.execute_query(
        "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {path: 'carol.txt'})"
        " RETURN c.text AS text ORDER BY c.index"
    )
    return [record["text"] for record in records]


async def test_simple_kg_pipelines_graph_is_searched_and_walked_with_its_chunks_as_evidence(
    graph: Graph,
    patient_client: Client,
    cli: Cli,
    pipeline: str,
    source_driver: neo4j.AsyncDriver,
) -> None:
    client = patient_client
    code, out, err = await load(cli, pipeline)
    assert code == 0, err
    assert "documents: 1 loaded, 0 unchanged, 0 rejected (of 1)" in out
    chunks = await pipeline_chunks(source_driver)
    assert [text.strip() for text in chunks] == list(SENTENCES)
    [vector] = HashEmbedder(TEST_DIMENSION).embed(["Ebenezer Scrooge"])
    client.embedder.script("Ebenezer Scrooge", vector)
    body = await client.execute(SEARCH, {"query": "Ebenezer Scrooge"})
    assert "errors" not in body, body
    top = body["data"]["searchEntities"][0]
    assert top["entity"] == {"id": SCROOGE, "name": "Ebenezer Scrooge", "labels": ["Person"]}
    assert top["status"] == "SUPPORTED"
    # The three nodes the pipeline wrote for Scrooge (one per chunk) are one entity, and its
    # evidence is the pipeline's chunks, in their order, as the pipeline stored them.
    assert [p["text"] for p in top["evidence"]] == chunks
    assert [p["position"] for p in top["evidence"]] == [0, 1, 2]
    assert {p["document"]["title"] for p in top["evidence"]} == {"carol.txt"}
    walked = await client.execute(WALK, {"id": SCROOGE})
    assert "errors" not in walked, walked
    edges = {
        (e["source"]["name"], e["type"], e["target"]["name"]): e
        for e in walked["data"]["walk"]["edges"]
    }
    assert sorted(edges) == [
        ("Bob Cratchit", "WORKED_FOR", "Ebenezer Scrooge"),
        ("Ebenezer Scrooge", "PARTNER_OF", "Jacob Marley"),
        ("Ebenezer Scrooge", "WORKED_IN", "London"),
        ("Jacob Marley", "VISITED", "Ebenezer Scrooge"),
    ]
    assert all(e["kind"] == "ASSERTION" for e in edges.values())
    # Supported by the chunks that mention both ends: the one that states it among them.
    assert [p["text"] for p in edges[("Bob Cratchit", "WORKED_FOR", "Ebenezer Scrooge")]
            ["evidence"]] == [chunks[1]]  # fmt: skip
    assert [p["text"] for p in edges[("Jacob Marley", "VISITED", "Ebenezer Scrooge")]
            ["evidence"]] == [chunks[0], chunks[2]]  # fmt: skip


async def test_the_source_ids_are_kept_as_source_id_and_the_source_is_left_as_it_was(
    graph: Graph, cli: Cli, pipeline: str, source_driver: neo4j.AsyncDriver
) -> None:
    before = await source_snapshot(source_driver)
    assert (await load(cli, pipeline))[0] == 0
    assert await source_snapshot(source_driver) == before
    records, _, _ = await source_driver.execute_query(
        "MATCH (c:Chunk) RETURN elementId(c) AS id ORDER BY c.index"
    )
    rows = await graph.read(
        "MATCH (d:Document)-[:HAS_PART]->(c:Chunk) RETURN d.sourceId AS document,"
        " c.sourceId AS chunk ORDER BY c.position",
        {},
    )
    assert [(row["document"], row["chunk"]) for row in rows] == [
        ("carol.txt", record["id"]) for record in records
    ]
    [scrooge] = await graph.read(
        "MATCH (e:Entity {id: $id}) RETURN e.sourceId AS s", {"id": SCROOGE}
    )
    sources, _, _ = await source_driver.execute_query(
        "MATCH (e:__Entity__ {name: 'Ebenezer Scrooge'}) RETURN elementId(e) AS id ORDER BY id"
    )
    assert scrooge["s"] == sources[0]["id"]  # the first of the three it merges


async def test_loading_the_same_source_twice_is_unchanged(
    graph: Graph, cli: Cli, pipeline: str
) -> None:
    assert (await load(cli, pipeline))[0] == 0
    before = await graph_counts(graph)
    code, out, _ = await load(cli, pipeline)
    assert code == 0 and "documents: 0 loaded, 1 unchanged, 0 rejected (of 1)" in out
    assert await graph_counts(graph) == before


async def test_changing_one_chunk_gives_one_new_version_all_or_nothing(
    graph: Graph, cli: Cli, pipeline: str, source_driver: neo4j.AsyncDriver
) -> None:
    assert (await load(cli, pipeline))[0] == 0
    old = await graph.read("MATCH (c:Chunk) RETURN c.id AS id", {})
    changed = SENTENCES[1].replace("Camden Town", "Camden Town, London")
    await source_driver.execute_query(
        "MATCH (c:Chunk {index: 1}) SET c.text = $text", {"text": changed}
    )
    try:
        code, out, err = await load(cli, pipeline)
    finally:
        await source_driver.execute_query(
            "MATCH (c:Chunk {index: 1}) SET c.text = $text", {"text": SENTENCES[1].ljust(CHUNK)}
        )
    assert code == 0, err
    assert "documents: 1 loaded, 0 unchanged, 0 rejected (of 1)" in out
    assert "(new version)" in out
    visible = await graph.read(
        "MATCH (d:Document)-[:HAS_PART]->(c:Chunk) WHERE c.version = d.currentVersion"
        " RETURN d.currentVersion AS version, c.id AS id, c.text AS text ORDER BY c.position",
        {},
    )
    # The whole document is the new version: every passage new, the changed one's text new.
    assert [row["version"] for row in visible] == [2, 2, 2]
    assert not {row["id"] for row in visible} & {row["id"] for row in old}
    assert [row["text"] for row in visible][1] == changed
    assert [row["text"].strip() for row in visible][::2] == [SENTENCES[0], SENTENCES[2]]


async def test_the_same_source_loads_into_two_workspaces_side_by_side(
    graph: Graph, cli: Cli, pipeline: str
) -> None:
    assert (await load(cli, pipeline, "acme"))[0] == 0
    assert (await load(cli, pipeline, "globex"))[0] == 0
    rows = await graph.read(
        "MATCH (d:Document)-[:HAS_PART]->(c:Chunk)<-[:MENTIONED_IN]-(e:Entity)"
        " WHERE e.name = 'Ebenezer Scrooge'"
        " RETURN d.workspace AS workspace, e.workspace AS owner, e.id AS id, count(c) AS chunks"
        " ORDER BY workspace",
        {},
    )
    assert [tuple(row.values()) for row in rows] == [
        ("acme", "acme", SCROOGE, 3),
        ("globex", "globex", workspace_id("globex", "Ebenezer Scrooge", "entity:Person"), 3),
    ]
    relations = await graph.read(
        "MATCH (a:Entity)-[r]->(b:Entity) RETURN r.workspace AS owner, count(*) AS n"
        " ORDER BY owner",
        {},
    )
    assert [tuple(row.values()) for row in relations] == [("acme", 5), ("globex", 5)]
