"""`evidencegraph load --format langchain`: LangChain graph documents, as LangChain's own code
wrote them (tests/fixtures/langchain_graph_documents.py), on the real Neo4j; and the reader's
mapping and refusals without one."""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contract.identifiers import is_canonical_uuid, workspace_id
from embedding.hashing import HashEmbedder
from graph.driver import Graph
from ingest.bundle import LineError, parse_line
from ingest.document_version import DocumentVersion
from ingest.langchain_graph import read_graph_documents
from tests.conftest import TEST_DIMENSION, Client
from tests.support.load_helpers import Cli, graph_counts

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ARRAY = FIXTURES / "langchain-graph-documents.json"
LINES = FIXTURES / "langchain-graph-documents.jsonl"
LABEL = re.compile(r"[^\W\d_]\w*")
MARIE_CURIE = workspace_id("acme", "Marie Curie", "entity:Person")


def versions(path: Path, workspace: str = "acme") -> list[DocumentVersion]:
    found = [line for _, line in read_graph_documents(path, workspace).lines]
    assert all(isinstance(line, DocumentVersion) for line in found), found
    return [line for line in found if isinstance(line, DocumentVersion)]


def records() -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(ARRAY.read_text(encoding="utf-8"))
    return loaded


async def load(cli: Cli, path: Path, workspace: str = "acme") -> tuple[int, str, str]:
    run = await cli.run("load", "--format", "langchain", "--workspace", workspace, str(path))
    return run.code, run.out, run.err


def test_the_array_and_the_lines_langchain_writes_read_as_the_same_documents() -> None:
    from_array, from_lines = versions(ARRAY), versions(LINES)
    assert [v.to_json() for v in from_array] == [v.to_json() for v in from_lines]
    assert [v.document.title for v in from_array] == ["marie-curie.txt", "pierre-curie.txt"]
    assert [len(v.passages) for v in from_array] == [2, 2]


def test_node_types_become_labels_of_letters_digits_and_underscore() -> None:
    labels = Counter(label for v in versions(ARRAY) for e in v.entities for label in e.labels)
    # Entities merge by id across documents; count each once.
    distinct = {(e.id, e.labels) for v in versions(ARRAY) for e in v.entities}
    assert Counter(label for _, labels_ in distinct for label in labels_) == Counter(
        Person=4, Location=2, Organization=1, Award=1, ResearchInstitute=1, Concept=1
    )
    assert all(LABEL.fullmatch(label) for label in labels)
    types = {r.type for v in versions(ARRAY) for r in v.relations}
    assert "WORKS_WITH" in types  # the model wrote "works with"
    assert all(LABEL.fullmatch(kind) for kind in types)


def test_ids_are_derived_deterministically_per_workspace_even_from_canonical_ones(
    tmp_path: Path,
) -> None:
    first, again = versions(ARRAY), versions(ARRAY)
    assert [v.to_json() for v in first] == [v.to_json() for v in again]
    ids = [p.id for v in first for p in v.passages] + [e.id for v in first for e in v.entities]
    assert all(is_canonical_uuid(i) for i in ids)
    elsewhere = versions(ARRAY, workspace="globex")
    other = {p.id for v in elsewhere for p in v.passages} | {
        e.id for v in elsewhere for e in v.entities
    }
    assert not other & set(ids)
    given = records()
    kept = "0b6f5d1e-2c1a-4f43-9a57-1f0a6d2b9c11"
    given[0]["source"]["id"] = kept
    given[0]["nodes"][0]["id"] = kept.upper()  # a UUID in capitals is still that UUID
    path = tmp_path / "ids.json"
    path.write_text(json.dumps(given), encoding="utf-8")
    [marie, _] = versions(path)
    assert marie.passages[0].id == workspace_id("acme", kept, "langchain_passage")
    assert marie.passages[0].source_id == kept
    node = next(e for e in marie.entities if e.source_id == kept.upper())
    assert node.id == workspace_id("acme", kept, "entity")


def test_a_statement_made_in_two_chunks_is_one_relation_with_both_passages(
    tmp_path: Path,
) -> None:
    given = records()
    given[1]["relationships"].append(given[0]["relationships"][0])  # Marie Curie BORN_IN Warsaw
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(given), encoding="utf-8")
    [marie, _] = versions(path)
    [born] = [r for r in marie.relations if r.type == "BORN_IN"]
    assert born.passage_ids == tuple(p.id for p in marie.passages)


def test_a_bad_record_refuses_its_document_by_record_number_and_reason(tmp_path: Path) -> None:
    given = records()
    given[1]["nodes"][0]["type"] = "???"
    given[3]["nodes"][0]["id"] = ""
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(record) for record in given]
    lines.insert(2, '{"nodes": [')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = read_graph_documents(path, "acme").lines
    assert [(n, type(line).__name__) for n, line in found] == [
        (2, "LineError"),
        (3, "LineError"),
        (5, "LineError"),
    ]
    reasons = {n: line.reason for n, line in found if isinstance(line, LineError)}
    assert reasons[2].startswith("nodes[0].type '???' is not a label")
    assert reasons[2].endswith("(nothing of document marie-curie.txt is loaded)")
    assert reasons[3].startswith("invalid JSON")
    assert reasons[5].startswith("nodes[0].id must be a non-empty string")


def test_a_langchain_dumpd_record_is_refused_with_what_to_write_instead(tmp_path: Path) -> None:
    path = tmp_path / "dumpd.jsonl"
    path.write_text(json.dumps({"lc": 1, "type": "constructor", "kwargs": {}}) + "\n")
    [(number, line)] = read_graph_documents(path, "acme").lines
    assert number == 1 and isinstance(line, LineError) and "model_dump()" in line.reason


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
NODE = st.fixed_dictionaries(
    {"id": st.text(max_size=6) | st.integers(), "type": st.text(max_size=8)},
    optional={"properties": st.dictionaries(st.sampled_from(["name", "description"]), JSON)},
)
RECORD = st.fixed_dictionaries(
    {
        "nodes": st.lists(NODE, max_size=3) | JSON,
        "relationships": st.lists(
            st.fixed_dictionaries(
                {"source": NODE | JSON, "target": NODE, "type": st.text(max_size=8)},
                optional={"properties": JSON},
            ),
            max_size=3,
        ),
        "source": st.fixed_dictionaries(
            {"page_content": st.text(max_size=10) | JSON},
            optional={"metadata": JSON | st.fixed_dictionaries({"source": st.text(max_size=3)})},
        ),
    }
)


@settings(max_examples=100, deadline=None)
@given(st.lists(RECORD | JSON, max_size=5))
def test_hostile_graph_documents_map_to_valid_lines_or_are_refused(values: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hostile.jsonl"
        path.write_text("".join(json.dumps(value) + "\n" for value in values), encoding="utf-8")
        lines = read_graph_documents(path, "acme").lines
    for _, line in lines:
        if isinstance(line, LineError):
            assert line.reason
            continue
        version = line
        # Every line the reader lets through passes the bundle's own checks.
        assert isinstance(parse_line(json.dumps(version.to_json())), DocumentVersion)
        names = [label for e in version.entities for label in e.labels]
        names += [r.type for r in version.relations]
        assert all(LABEL.fullmatch(name) for name in names)


async def test_langchain_graph_documents_load_with_their_passages_mentions_and_relations(
    graph: Graph, cli: Cli
) -> None:
    code, out, err = await load(cli, ARRAY)
    assert code == 0, err
    assert "documents: 2 loaded, 0 unchanged, 0 rejected (of 2)" in out
    assert "warning: 2 node(s) have a type that is not a label" in err
    counts = await graph_counts(graph)
    assert (counts[":Document"], counts[":Chunk"], counts[":Entity"]) == (2, 4, 10)
    assert counts["-MENTIONED_IN-"] == sum(
        len(e.mentions) for v in versions(ARRAY) for e in v.entities
    )
    relations = await graph.read(
        "MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS type, r.passageIds AS support", {}
    )
    assert len(relations) == 12 and all(len(row["support"]) == 1 for row in relations)
    documents = await graph.read(
        "MATCH (d:Document) RETURN d.workspace AS workspace, d.title AS title ORDER BY title", {}
    )
    assert [tuple(row.values()) for row in documents] == [
        ("acme", "marie-curie.txt"),
        ("acme", "pierre-curie.txt"),
    ]


async def test_loading_langchain_graph_documents_twice_leaves_the_same_graph(
    graph: Graph, cli: Cli
) -> None:
    assert (await load(cli, LINES))[0] == 0
    before = await graph_counts(graph)
    code, out, _ = await load(cli, ARRAY)  # the same documents, written the other way
    assert code == 0 and "documents: 0 loaded, 2 unchanged, 0 rejected (of 2)" in out
    assert await graph_counts(graph) == before


SEARCH = """
query ($query: String!) {
  searchEntities(query: $query, limit: 3) {
    entity { id name labels }
    status
    evidence { text document { title } }
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


async def test_loaded_langchain_entities_are_found_with_evidence_from_both_documents(
    graph: Graph, client: Client, cli: Cli
) -> None:
    assert (await load(cli, ARRAY))[0] == 0
    [vector] = HashEmbedder(TEST_DIMENSION).embed(["Marie Curie"])
    client.embedder.script("Marie Curie", vector)
    body = await client.execute(SEARCH, {"query": "Marie Curie"})
    assert "errors" not in body, body
    top = body["data"]["searchEntities"][0]
    assert top["entity"] == {"id": MARIE_CURIE, "name": "Marie Curie", "labels": ["Person"]}
    assert top["status"] == "SUPPORTED"
    # Evidence comes in document id order (contract §3), and the ids are derived.
    assert sorted(p["document"]["title"] for p in top["evidence"]) == [
        "marie-curie.txt",
        "marie-curie.txt",
        "pierre-curie.txt",
    ]
    assert all("Marie Curie" in p["text"] for p in top["evidence"])


async def test_the_walk_from_a_loaded_langchain_entity_states_each_edge_with_its_chunk(
    graph: Graph, client: Client, cli: Cli
) -> None:
    assert (await load(cli, ARRAY))[0] == 0
    body = await client.execute(WALK, {"id": MARIE_CURIE})
    assert "errors" not in body, body
    edges = body["data"]["walk"]["edges"]
    assert sorted((e["source"]["name"], e["type"], e["target"]["name"]) for e in edges) == [
        ("Marie Curie", "BORN_IN", "Warsaw"),
        ("Marie Curie", "FOUNDED", "Radium Institute"),
        ("Marie Curie", "STUDIED_AT", "Sorbonne"),
        ("Marie Curie", "WON", "Nobel Prize in Physics"),
        ("Pierre Curie", "WORKS_WITH", "Marie Curie"),
    ]
    for edge in edges:
        assert edge["kind"] == "ASSERTION"
        [passage] = edge["evidence"]
        assert edge["target"]["name"].split()[0] in passage["text"]


async def test_bad_langchain_records_are_reported_and_the_other_documents_load(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    given = records()
    given[3]["relationships"][0]["type"] = "!!!"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in given) + "not json\n")
    code, out, err = await load(cli, path)
    assert code == 2
    assert "documents: 1 loaded, 0 unchanged, 2 rejected (of 3)" in out
    assert f"{path}: record 4: relationships[0].type '!!!' has no words" in err
    assert "(nothing of document pierre-curie.txt is loaded)" in err
    assert f"{path}: record 5: invalid JSON" in err
    titles = await graph.read("MATCH (d:Document) RETURN d.title AS title", {})
    assert [row["title"] for row in titles] == ["marie-curie.txt"]
    chunks = await graph.read("MATCH (c:Chunk) RETURN count(c) AS n", {})
    assert chunks[0]["n"] == 2


async def test_load_refuses_a_file_that_is_not_graph_documents(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("[{", encoding="utf-8")
    code, _, err = await load(cli, path)
    assert code == 2 and "is not a JSON array of graph documents" in err
