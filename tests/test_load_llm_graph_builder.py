"""`evidencegraph load --format llm-graph-builder --from bolt://…` on a graph shaped as LLM Graph
Builder writes it (tests/fixtures/llm_graph_builder_graph.py), on the real Neo4j; a source of
neither layout refused with what it holds; and labels and types from the source, hostile
input, reaching the graph only as names the one naming rule allows."""

from __future__ import annotations

import json
import string
from collections import Counter
from typing import Any

import neo4j
from hypothesis import given, settings
from hypothesis import strategies as st

from contract.graph_owned import GRAPH_OWNED_LABELS, GRAPH_OWNED_RELATION_TYPES
from contract.identifiers import workspace_id
from graph.cypher_names import is_load_name
from graph.driver import Graph
from graph.source_graph import (
    LLM_GRAPH_BUILDER,
    NEO4J_GRAPHRAG,
    SourceChunk,
    SourceDocument,
    SourceEntity,
    SourceLink,
    SourceRelationship,
    SourceRows,
)
from ingest.bundle import parse_line
from ingest.document_version import DocumentVersion
from ingest.source_graph_mapping import map_source_rows
from tests.fixtures.llm_graph_builder_graph import chunks_by_file, write_llm_graph_builder_graph
from tests.support.load_helpers import Cli, graph_counts
from tests.support.source_server import wipe_source

MARIE_CURIE = workspace_id("acme", "Marie Curie", "entity:__Entity__")


async def load(
    cli: Cli, source: str, format: str = "llm-graph-builder", workspace: str = "acme"
) -> tuple[int, str, str]:
    run = await cli.run("load", "--format", format, "--workspace", workspace, "--from", source)
    return run.code, run.out, run.err


async def written(source_server: str, source_driver: neo4j.AsyncDriver) -> str:
    await wipe_source(source_driver)
    await write_llm_graph_builder_graph(source_driver)
    return source_server


async def test_an_llm_graph_builder_graph_loads_with_its_chunks_mentions_and_relations(
    graph: Graph, cli: Cli, source_server: str, source_driver: neo4j.AsyncDriver
) -> None:
    source = await written(source_server, source_driver)
    code, out, err = await load(cli, source)
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
    again = await load(cli, source)
    assert again[0] == 0 and "documents: 0 loaded, 2 unchanged, 0 rejected (of 2)" in again[1]


async def test_a_source_matching_neither_layout_is_refused_naming_what_it_holds(
    graph: Graph, cli: Cli, source_server: str, source_driver: neo4j.AsyncDriver
) -> None:
    await wipe_source(source_driver)
    await source_driver.execute_query("CREATE (:Passage {text: 'x'})-[:OF]->(:Book {title: 'y'})")
    code, _, err = await load(cli, source_server, "neo4j-graphrag")
    assert code == 2
    assert "matches neither neo4j-graphrag's nor LLM Graph Builder's layout" in err
    assert "it holds labels: Book, Passage; relationship types: OF" in err
    await write_llm_graph_builder_graph(source_driver)
    code, _, err = await load(cli, source_server, "neo4j-graphrag")
    assert code == 2 and "load it with --format llm-graph-builder" in err
    assert await graph_counts(graph) == {}


HOSTILE_NAMES = (
    "Person`) DETACH DELETE (n",
    "\\u0060) MATCH (m) DETACH DELETE m //",
    "Org:Admin",
    "research institute",
    "_Bloom_Perspective_",
    "Chunk",
    "MENTIONED_IN",
    "3D",
    "名前",
    " ",
)


async def test_hostile_labels_and_types_in_the_source_reach_the_graph_only_as_plain_names(
    graph: Graph, cli: Cli, source_server: str, source_driver: neo4j.AsyncDriver
) -> None:
    await wipe_source(source_driver)
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
    code, _, err = await load(cli, source_server)
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


NAMES = st.text(
    alphabet=st.sampled_from(string.ascii_letters + string.digits + "_`\\:() \u0060名-"),
    max_size=12,
) | st.sampled_from([*HOSTILE_NAMES, *GRAPH_OWNED_LABELS, "__Entity__", "__KGBuilder__"])
VALUES: st.SearchStrategy[Any] = st.none() | st.integers() | st.text(max_size=6) | st.booleans()


TEXTS = st.text(min_size=1, max_size=8)


@st.composite
def source_rows(draw: st.DrawFn) -> SourceRows:
    """A small source graph with hostile labels, types, names and property values; most
    entities named and linked, so most of what is drawn reaches a line."""
    documents = [
        SourceDocument(f"d{i}", draw(TEXTS | VALUES), draw(VALUES), draw(VALUES))
        for i in range(draw(st.integers(1, 2)))
    ]
    chunks = [
        SourceChunk(f"c{i}", draw(st.sampled_from(documents)).element_id, draw(TEXTS | VALUES),
                    draw(VALUES), draw(VALUES))
        for i in range(draw(st.integers(1, 3)))
    ]  # fmt: skip
    entities = [
        SourceEntity(f"e{i}", tuple(draw(st.lists(NAMES, min_size=1, max_size=3))),
                     tuple(draw(st.lists(TEXTS | VALUES, min_size=1, max_size=2))),
                     draw(VALUES))
        for i in range(draw(st.integers(1, 4)))
    ]  # fmt: skip
    ids = [e.element_id for e in entities]
    chunk_ids = [c.element_id for c in chunks]
    links = [
        SourceLink(entity, chunk)
        for entity in ids
        for chunk in draw(st.lists(st.sampled_from(chunk_ids), min_size=1, max_size=2))
    ]
    relationships = [
        SourceRelationship(f"r{i}", draw(st.sampled_from(ids)), draw(st.sampled_from(ids)),
                           draw(NAMES), draw(st.dictionaries(NAMES, VALUES, max_size=2)))
        for i in range(draw(st.integers(0, 3)))
    ]  # fmt: skip
    return SourceRows(documents, chunks, entities, links, relationships)


@settings(max_examples=100, deadline=None)
@given(rows=source_rows(), neo4j_graphrag=st.booleans())
def test_hostile_source_graphs_map_to_lines_the_bundle_checks_accept_or_are_refused(
    rows: SourceRows, neo4j_graphrag: bool
) -> None:
    layout = NEO4J_GRAPHRAG if neo4j_graphrag else LLM_GRAPH_BUILDER
    export = map_source_rows(rows, layout, "acme", GRAPH_OWNED_RELATION_TYPES)
    numbers = Counter(number for number, _ in export.lines)
    assert all(count == 1 for count in numbers.values())
    for _, line in export.lines:
        if not isinstance(line, DocumentVersion):
            assert line.reason
            continue
        # Every line passes the bundle's own checks: ids, labels and types the rule allows.
        assert isinstance(parse_line(json.dumps(line.to_json())), DocumentVersion)
        labels = {label for e in line.entities for label in e.labels}
        types = {r.type for r in line.relations}
        assert all(is_load_name(name) for name in labels | types), (labels, types)
        assert not labels & set(GRAPH_OWNED_LABELS)
        assert not types & set(GRAPH_OWNED_RELATION_TYPES)
