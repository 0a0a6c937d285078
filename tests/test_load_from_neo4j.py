"""`evidencegraph load --from bolt://…`: graphs read from another Neo4j (the source server,
tests/support/source_server.py), on the real Neo4j. Every test that needs the source server is
in this module, so a run under `pytest -n 2 --dist loadfile` starts at most one more server;
conftest.py's `source` gives each test an empty source and empties it when the test ends.

- neo4j-graphrag: the graph its own `SimpleKGPipeline` writes (a scripted model,
  tests/support/kg_pipeline.py; a few seconds a run), imported, searched and walked; loaded
  again, changed, loaded into two workspaces; the source left as it was.
- LLM Graph Builder: a graph written with its backend's statements
  (tests/fixtures/llm_graph_builder_graph.py); a source of neither layout refused with what it
  holds; hostile labels and types in the source.
- The tenancy property (tests/support/workspace_isolation.py) over graphs of both layouts
  read from the source, among files.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import neo4j
import pytest
from hypothesis import given, note, settings

from contract.graph_owned import GRAPH_OWNED_RELATION_TYPES
from contract.identifiers import workspace_id
from embedding.hashing import HashEmbedder
from graph import source_graph
from graph.cypher_names import is_load_name
from graph.driver import Graph
from ingest.source_graph_import import GraphSource, parse_source_uri, read_source_graph
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.fixtures.llm_graph_builder_graph import chunks_by_file, write_llm_graph_builder_graph
from tests.support.kg_pipeline import ScriptedLLM, run_pipeline
from tests.support.load_helpers import Cli, graph_counts
from tests.support.source_server import HOSTILE_NAMES, SourceHolder, source_snapshot
from tests.support.workspace_isolation import (
    PROFILE,
    Served,
    loads_change_nothing_the_other_workspace_reads,
    serve_two_workspaces,
)
from tests.support.workspace_sources import (
    FILE_FORMATS,
    GRAPH_FORMATS,
    Load,
    load_sequences,
)

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


@pytest.fixture
async def pipeline(source: str) -> str:
    """The source holding what SimpleKGPipeline wrote from TEXT."""
    llm: ScriptedLLM = await run_pipeline(
        source, TEXT, ANSWERS, schema=SCHEMA, file_path="carol.txt", chunk_size=CHUNK
    )
    assert len(llm.prompts) == len(SENTENCES)  # the model was asked once per chunk
    return source


async def load(
    cli: Cli, source: str, workspace: str = "acme", format: str = "neo4j-graphrag"
) -> tuple[int, str, str]:
    run = await cli.run("load", "--format", format, "--workspace", workspace, "--from", source)
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


async def test_the_source_is_left_as_it_was(
    graph: Graph, cli: Cli, pipeline: str, source_driver: neo4j.AsyncDriver
) -> None:
    before = await source_snapshot(source_driver)
    assert (await load(cli, pipeline))[0] == 0
    assert await source_snapshot(source_driver) == before


async def test_the_source_is_read_in_read_transactions_where_a_write_is_refused(
    source: str, source_driver: neo4j.AsyncDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Were a statement of the reader ever to write, Neo4j would refuse it (READ access).
    before = await source_snapshot(source_driver)
    monkeypatch.setattr(
        source_graph, "FOUND_NAMES", "CREATE (:Written) WITH 1 AS one " + source_graph.FOUND_NAMES
    )
    async with source_graph.open_source_graph(source, None, None) as reader:
        with pytest.raises(neo4j.exceptions.ClientError, match="read access mode"):
            await reader.found_names()
    assert await source_snapshot(source_driver) == before


async def test_the_source_ids_are_kept_as_source_id(
    graph: Graph, cli: Cli, pipeline: str, source_driver: neo4j.AsyncDriver
) -> None:
    assert (await load(cli, pipeline))[0] == 0
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
    code, out, err = await load(cli, pipeline)
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


# LLM Graph Builder: its backend's statements (tests/fixtures/llm_graph_builder_graph.py).

LLM = "llm-graph-builder"
MARIE_CURIE = workspace_id("acme", "Marie Curie", "entity:__Entity__")


@pytest.fixture
async def llm_graph_builder(source: str, source_driver: neo4j.AsyncDriver) -> str:
    """The source holding the LLM Graph Builder-shaped fixture."""
    await write_llm_graph_builder_graph(source_driver)
    return source


async def test_an_llm_graph_builder_graph_loads_with_its_chunks_mentions_and_relations(
    graph: Graph, cli: Cli, llm_graph_builder: str
) -> None:
    source = llm_graph_builder
    code, out, err = await load(cli, source, format=LLM)
    assert code == 0, err
    assert "documents: 2 loaded, 0 unchanged, 0 rejected (of 2)" in out
    assert "label(s) are not labels as they stand" in err and "ResearchInstitute" in err
    counts = await graph_counts(graph)
    assert (counts[":Document"], counts[":Chunk"], counts[":Entity"]) == (2, 4, 10)
    documents = await graph.read(
        "MATCH (d:Document)-[:HAS_PART]->(c:Chunk) WITH d, c ORDER BY c.position"
        " RETURN d.title AS title, collect(c.text) AS texts ORDER BY title",
        {},
    )
    files = chunks_by_file()
    assert [(row["title"], row["texts"]) for row in documents] == [
        (name, [record["source"]["page_content"] for record in records])
        for name, records in sorted(files.items())
    ]
    [marie] = await graph.read(
        "MATCH (e:Entity {id: $id})-[:MENTIONED_IN]->(c:Chunk)"
        " RETURN e.description AS description, e.sourceId AS source, count(c) AS chunks",
        {"id": MARIE_CURIE},
    )
    assert tuple(marie.values()) == (
        "Physicist and chemist who researched radioactivity",
        "Marie Curie",
        3,
    )
    relations = await graph.read(
        "MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS type, size(r.passageIds) AS support",
        {},
    )
    # Entity-to-entity relationships only (not SIMILAR, HAS_ENTITY or IN_COMMUNITY), each
    # supported by the chunk that states it; the model's "works with" is WORKS_WITH.
    assert len(relations) == 12 and all(row["support"] >= 1 for row in relations)
    assert "WORKS_WITH" in {row["type"] for row in relations}
    again = await load(cli, source, format=LLM)
    assert again[0] == 0 and "documents: 0 loaded, 2 unchanged, 0 rejected (of 2)" in again[1]


async def test_the_source_is_read_with_a_progress_line_per_kind_and_its_total(
    llm_graph_builder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    where = GraphSource(parse_source_uri(llm_graph_builder), LLM, "acme")
    await read_source_graph(where, GRAPH_OWNED_RELATION_TYPES)
    lines = capsys.readouterr().err.splitlines()
    assert [line.removeprefix(f"read {llm_graph_builder}: ") for line in lines] == [
        "documents 2 of 2",
        "chunks 4 of 4",
        "entities 10 of 10",
        "entity links 15",
        "relationships 12",
    ]


async def test_a_source_matching_neither_layout_is_refused_naming_what_it_holds(
    graph: Graph, cli: Cli, source: str, source_driver: neo4j.AsyncDriver
) -> None:
    await source_driver.execute_query("CREATE (:Passage {text: 'x'})-[:OF]->(:Book {title: 'y'})")
    code, _, err = await load(cli, source)
    assert code == 2
    assert "matches neither neo4j-graphrag's nor LLM Graph Builder's layout" in err
    assert "it holds labels: Book, Passage; relationship types: OF" in err
    await write_llm_graph_builder_graph(source_driver)
    code, _, err = await load(cli, source)
    assert code == 2 and "load it with --format llm-graph-builder" in err
    assert await graph_counts(graph) == {}


async def test_hostile_labels_and_types_in_the_source_reach_the_graph_only_as_plain_names(
    graph: Graph, cli: Cli, source: str, source_driver: neo4j.AsyncDriver
) -> None:
    await source_driver.execute_query(
        "CREATE (d:Document {fileName: 'f.txt'})"
        " CREATE (c:Chunk {id: 'c1', text: 'A text naming everything.', position: 1})"
        " CREATE (c)-[:PART_OF]->(d)"
        " WITH c UNWIND range(0, size($names) - 1) AS i"
        " CREATE (e:__Entity__ {id: 'entity ' + i}) SET e:$($names[i])"
        " CREATE (c)-[:HAS_ENTITY]->(e)"
        " WITH collect(e) AS entities UNWIND range(1, size(entities) - 1) AS i"
        " WITH entities[i - 1] AS a, entities[i] AS b, $names[i] AS kind"
        " CREATE (a)-[:$(kind)]->(b)",
        {"names": list(HOSTILE_NAMES)},
    )
    code, _, err = await load(cli, source, format=LLM)
    assert code == 0, err
    # Nothing in the service's graph was deleted or matched by the names: one document, one
    # chunk, every entity, and only labels and types the naming rule allows.
    counts = await graph_counts(graph)
    assert (counts[":Document"], counts[":Chunk"], counts[":Entity"]) == (1, 1, 10)
    labels = await graph.read(
        "MATCH (e:Entity) UNWIND labels(e) AS label RETURN DISTINCT label", {}
    )
    types = await graph.read("MATCH (:Entity)-[r]->(:Entity) RETURN DISTINCT type(r) AS t", {})
    for name in [row["label"] for row in labels] + [row["t"] for row in types]:
        assert is_load_name(name), name
    assert not {row["t"] for row in types} & set(GRAPH_OWNED_RELATION_TYPES)
    assert {row["label"] for row in labels} >= {"ExtractedChunk", "ResearchInstitute", "Thing"}


# The tenancy property (contract §2 "Ownership") over graphs read from the source. Half the
# examples of tests/test_workspace_isolation.py's dozen (an example costs what one there does),
# each with a `load --from` at least, and graphs drawn twice as often as files, so that a
# sequence often reads one graph twice: side by side, again, or edited.
GRAPH_EXAMPLES = 6
LOAD_FORMATS = GRAPH_FORMATS + GRAPH_FORMATS + FILE_FORMATS


@pytest.fixture
async def served(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Served]:
    async with serve_two_workspaces(neo4j_uri, graph, tmp_path) as served:
        yield served


@pytest.fixture
def holder(source: str, source_driver: neo4j.AsyncDriver) -> SourceHolder:
    """What the source holds, kept across the examples of one test (each clears it first)."""
    return SourceHolder(source_driver)


@settings(PROFILE, max_examples=GRAPH_EXAMPLES)
@given(loads=load_sequences(formats=LOAD_FORMATS, at_least_one_of=GRAPH_FORMATS))
async def test_a_graph_read_from_neo4j_loaded_into_one_workspace_changes_nothing_the_other_reads(
    served: Served, graph: Graph, source: str, holder: SourceHolder, loads: list[Load]
) -> None:
    """tests/test_workspace_isolation.py's property, with `load --from` among the loads: a
    graph of either layout loaded into A or B, side by side, again, or after an edit."""
    note(repr(loads))
    await loads_change_nothing_the_other_workspace_reads(served, graph, loads, (source, holder))
