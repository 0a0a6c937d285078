"""Graph-owned labels (contract §1, contract/graph_owned.py): every label the service keeps for
itself is one, and no load ever writes one as an entity label: a bundle line naming one is
refused with its line number and reason; GraphRAG types and LangChain node types are renamed,
as their readers already do for the contract's own labels."""

from __future__ import annotations

import ast
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contract.graph_owned import GRAPH_OWNED_LABELS, GRAPH_OWNED_RELATION_TYPES
from graph.driver import Graph
from ingest.bundle import LineError, parse_line
from ingest.document_version import DocumentVersion
from ingest.graphrag import read_graphrag
from ingest.langchain_graph import read_graph_documents
from tests.support.load_helpers import Cli, bundle_line, entity, uid, write_bundle

GRAPH = Path(__file__).resolve().parent.parent / "graph"
# A node pattern's label, `(job:Job` or `(:Chunk`; a relationship pattern's type, `[:HAS_PART`.
NODE_LABEL = re.compile(r"\(\w*:(\w+)")
RELATION_TYPE = re.compile(r"\[\w*:(\w+)")


def cypher_of_graph_modules() -> str:
    """Every string literal in graph/'s modules but their docstrings (where `(n:Person)` is
    an example, not a statement)."""
    texts = []
    for module in sorted(GRAPH.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        texts += [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ]
    return "\n".join(texts)


def test_every_label_the_service_matches_in_cypher_is_graph_owned() -> None:
    cypher = cypher_of_graph_modules()
    labels = set(NODE_LABEL.findall(cypher))
    assert "StagedEntity" in labels  # the scan reads the statements
    assert labels - set(GRAPH_OWNED_LABELS) == set()
    assert set(RELATION_TYPE.findall(cypher)) - set(GRAPH_OWNED_RELATION_TYPES) == set()


@pytest.mark.parametrize("label", GRAPH_OWNED_LABELS)
def test_a_bundle_entity_with_a_graph_owned_label_is_refused_with_the_reason(label: str) -> None:
    line = bundle_line(1, [(1, "Ada, analyst.")], entities=[entity(1, "Ada", [1], label)])
    refused = parse_line(json.dumps(line))
    assert isinstance(refused, LineError)
    assert refused.reason == f'entities[0].labels[0]: "{label}" is a graph-owned label'


async def test_a_bundle_line_with_a_service_label_is_refused_by_line_and_the_others_load(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    good = bundle_line(1, [(1, "Ada, analyst.")], entities=[entity(1, "Ada", [1])])
    staged = bundle_line(
        2, [(2, "Grace, analyst.")], entities=[entity(2, "Grace", [2], "StagedEntity")]
    )
    bundle = write_bundle(tmp_path / "owned.jsonl", [good, staged])
    run = await cli.run("load", str(bundle))
    assert run.code == 2
    assert f'{bundle}: line 2: entities[0].labels[0]: "StagedEntity" is a graph-owned label' in (
        run.err
    )
    stored = await graph.read("MATCH (e:Entity) RETURN e.id AS id", {})
    assert [row["id"] for row in stored] == [uid("e", 1)]


def langchain_record(node_type: str) -> dict[str, Any]:
    """One graph document: a passage naming one node of `node_type`, and its relation."""
    node = {"id": "Ada Lovelace", "type": node_type, "properties": {}}
    other = {"id": "Babbage", "type": "Person", "properties": {}}
    return {
        "nodes": [node, other],
        "relationships": [
            {"source": node, "target": other, "type": "WORKED_WITH", "properties": {}}
        ],
        "source": {
            "id": None,
            "metadata": {"source": "ada.txt"},
            "page_content": "Ada Lovelace worked with Babbage.",
            "type": "Document",
        },
    }


def spellings(label: str) -> list[str]:
    """`StagedEntity`, `STAGEDENTITY`, `Staged Entity`, `STAGED_ENTITY`."""
    spaced = re.sub(r"(?<!^)([A-Z])", r" \1", label)
    return [label, label.upper(), spaced, spaced.upper().replace(" ", "_")]


def write_table(folder: Path, name: str, columns: dict[str, list[Any]]) -> None:
    pq.write_table(pa.table(columns), folder / f"{name}.parquet")


OWNED_SPELLINGS = [spelling for label in GRAPH_OWNED_LABELS for spelling in spellings(label)]
# Node types a LangChain extraction may hold: the graph-owned labels in several spellings, and
# any text at all.
NODE_TYPES = st.sampled_from(OWNED_SPELLINGS) | st.text(max_size=20)


@given(node_type=NODE_TYPES)
def test_no_langchain_node_type_becomes_a_graph_owned_entity_label(node_type: str) -> None:
    with_node = json.dumps([langchain_record(node_type)])
    labels = {
        label
        for _, line in _read_langchain(with_node)
        if not isinstance(line, LineError)
        for entity_input in line.entities
        for label in entity_input.labels
    }
    assert labels.isdisjoint(GRAPH_OWNED_LABELS), labels


def _read_langchain(text: str) -> list[tuple[int, DocumentVersion | LineError]]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.json"
        path.write_text(text, encoding="utf-8")
        return list(read_graph_documents(path, "acme").lines)


def test_no_graphrag_type_becomes_a_graph_owned_label(tmp_path: Path) -> None:
    types = OWNED_SPELLINGS
    write_table(tmp_path, "documents", {"id": ["d"], "title": ["D"]})
    write_table(tmp_path, "text_units", {"id": ["t"], "text": ["x"], "document_id": ["d"]})
    write_table(
        tmp_path,
        "entities",
        {
            "id": [f"e{n}" for n in range(len(types))],
            "title": [f"E{n}" for n in range(len(types))],
            "type": types,
            "text_unit_ids": [["t"]] * len(types),
        },
    )
    write_table(
        tmp_path, "relationships", {"id": pa.array([], pa.string()), "source": [], "target": []}
    )
    [version] = read_graphrag(tmp_path, "acme").versions
    labels = {label for entity_input in version.entities for label in entity_input.labels}
    assert len(version.entities) == len(types)
    assert labels.isdisjoint(GRAPH_OWNED_LABELS), labels


async def test_purge_leaves_an_entity_whose_node_type_is_a_service_label(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    """Before: the entity was written with the label `StagedEntity`, and `purge` took it for a
    finished job's staging: deleted, or (mentioned) the whole purge failed."""
    path = tmp_path / "staged.json"
    path.write_text(json.dumps([langchain_record("StagedEntity")]), encoding="utf-8")
    loaded = await cli.run("load", "--format", "langchain", str(path))
    assert loaded.code == 0, loaded.err
    purged = await cli.run("purge", "--older-than", "0s")
    assert purged.code == 0, purged.err
    names = await graph.read(
        "MATCH (e:Entity)-[:MENTIONED_IN]->(:Chunk) RETURN e.name AS name ORDER BY name", {}
    )
    assert [row["name"] for row in names] == ["Ada Lovelace", "Babbage"]
