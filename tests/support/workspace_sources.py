"""Hypothesis strategies for sources loaded into two workspaces that reuse each other's ids:
bundle lines, GraphRAG output folders (parquet tables in the layout ingest/graphrag_tables.py
reads), LangChain graph document files (ingest/langchain_graph.py's format), and graphs in
Neo4j laid out as neo4j-graphrag or LLM Graph Builder writes them (`load --from`).

Every source draws its entity ids, relation ids, names, labels and descriptions from small
pools shared by both workspaces, so the same id or name is named from both sides often: a
bundle entity id is a GraphRAG entity id or a LangChain node id elsewhere, a GraphRAG
`ent-1` or a LangChain `Acme Corp` derives the same id in every workspace unless the loader
makes it per workspace. Documents and passages are fresh per source (the loaders already
refuse a document or passage of another workspace), so a drawn load is mostly written, not
refused.

A graph in Neo4j is drawn once per sequence and layout, as graph documents (one chunk each),
and every load of that layout in the sequence reads it, into either workspace: the same graph
loaded side by side, again (unchanged), or after its first chunk was edited (`GraphLoad.edited`:
its document's next version). So a sequence costs the source server one write per layout it
reads, and an edit is one statement (tests/support/source_server.py `SourceHolder`).

    loads = data.draw(load_sequences())
    path = loads[0].write(tmp_path / "load-0")
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

from tests.support.load_helpers import uid

WORKSPACES = ("A", "B")
ENTITY_IDS = tuple(uid("e", n) for n in (1, 2, 3))  # canonical: kept as they are by every reader
RELATION_IDS = tuple(uid("r", n) for n in (1, 2))
GRAPHRAG_ENTITY_IDS = ("ent-1", "ent-2")  # derived (UUID5) by the GraphRAG reader
GRAPHRAG_RELATION_IDS = ("rel-1", "rel-2")
NAMES = ("Acme Corp", "Ada Lovelace", "Engine")
LABELS = ("Person", "Organization")  # GraphRAG types PERSON and ORGANIZATION map to them
DESCRIPTIONS = (None, "maker of engines", "wrote the first program")
RELATION_TYPES = ("KNOWS", "OWNS")
# Words the searches ask for (QUERIES) in every passage text, in different mixes.
TEXTS = (
    "Acme Corp builds the engine.",
    "Ada Lovelace wrote about the engine.",
    "Acme Corp hired Ada Lovelace.",
)
QUERIES = ("acme corp", "engine ada")
FILE_FORMATS = ("bundle", "graphrag", "langchain")
GRAPH_FORMATS = ("neo4j-graphrag", "llm-graph-builder")  # read from the source server


def edited_text(text: str) -> str:
    """Another of TEXTS: what an edited chunk reads."""
    return TEXTS[(TEXTS.index(text) + 1) % len(TEXTS)]


@dataclass(frozen=True)
class GraphLoad:
    """A graph in Neo4j as a load reads it: the sequence's graph documents of its layout, with
    the first one's chunk reading `edited_text` of its own when `edited`."""

    graph_documents: list[dict[str, Any]]
    edited: bool


@dataclass(frozen=True)
class Load:
    """One source loaded into one workspace. `number` makes its documents and passages fresh."""

    workspace: str
    format: str  # one of FILE_FORMATS or GRAPH_FORMATS
    number: int
    content: Any  # bundle: lines; graphrag: {table: columns}; langchain: records; a GraphLoad

    def write(self, folder: Path) -> Path:
        """The source as files under `folder`: the path `evidencegraph load` is given."""
        if self.format in GRAPH_FORMATS:
            raise ValueError(f"a {self.format} load reads the source server, not files")
        folder.mkdir(parents=True, exist_ok=True)
        if self.format == "graphrag":
            for table, columns in self.content.items():
                pq.write_table(pa.table(columns), folder / f"{table}.parquet")
            return folder
        suffix = "jsonl" if self.format == "bundle" else "json"
        path = folder / f"source.{suffix}"
        if self.format == "bundle":
            path.write_text("".join(json.dumps(line) + "\n" for line in self.content))
        else:
            path.write_text(json.dumps(self.content))
        return path


def _some(elements: tuple[Any, ...] | list[Any], min_size: int = 1) -> st.SearchStrategy[list[Any]]:
    return st.lists(
        st.sampled_from(elements), min_size=min_size, max_size=len(elements), unique=True
    )


@st.composite
def bundle_lines(draw: st.DrawFn, workspace: str, number: int) -> list[dict[str, Any]]:
    """One line: fresh document and passages; entities and relations by shared ids."""
    passages = [uid("p", number * 10 + k) for k in range(draw(st.integers(1, 2)))]
    entity_ids = draw(_some(ENTITY_IDS))
    entities = [
        {
            "id": entity_id,
            "labels": [draw(st.sampled_from(LABELS))],
            "name": draw(st.sampled_from(NAMES)),
            **({"description": d} if (d := draw(st.sampled_from(DESCRIPTIONS))) else {}),
            "mentions": draw(_some(passages)),
        }
        for entity_id in entity_ids
    ]
    relations = [
        {
            "id": relation_id,
            "type": draw(st.sampled_from(RELATION_TYPES)),
            # any shared id: one this line does not write refers to a stored entity (or to
            # none, and the line is refused)
            "source": draw(st.sampled_from(entity_ids)),
            "target": draw(st.sampled_from(ENTITY_IDS)),
            "passageIds": draw(_some(passages, min_size=0)),
        }
        for relation_id in draw(_some(RELATION_IDS, min_size=0))
    ]
    return [
        {
            "document": {"id": uid("d", number), "workspace": workspace, "title": f"doc {number}"},
            "passages": [
                {"id": p, "position": k, "text": draw(st.sampled_from(TEXTS))}
                for k, p in enumerate(passages)
            ],
            "entities": entities,
            "relations": relations,
        }
    ]


@st.composite
def graphrag_tables(draw: st.DrawFn, number: int) -> dict[str, dict[str, list[Any]]]:
    """A GraphRAG 2.x/3.x folder: one document, its text units, entities, relationships."""
    document = f"doc-{number}"
    units = [f"tu-{number}-{k}" for k in range(draw(st.integers(1, 2)))]
    titles = draw(_some(NAMES))
    ids = draw(
        st.lists(
            st.sampled_from(GRAPHRAG_ENTITY_IDS + ENTITY_IDS),
            min_size=len(titles),
            max_size=len(titles),
            unique=True,
        )
    )
    relationships = [
        (relation_id, draw(st.sampled_from(titles)), draw(st.sampled_from(titles)))
        for relation_id in draw(_some(GRAPHRAG_RELATION_IDS + RELATION_IDS, min_size=0))
    ]
    return {
        "documents": {"id": [document], "human_readable_id": [number], "title": [document]},
        "text_units": {
            "id": units,
            "human_readable_id": list(range(len(units))),
            "text": [draw(st.sampled_from(TEXTS)) for _ in units],
            "document_id": [document] * len(units),
        },
        "entities": {
            "id": ids,
            "human_readable_id": list(range(len(ids))),
            "title": titles,
            "type": [draw(st.sampled_from(LABELS)).upper() for _ in ids],
            "description": [draw(st.sampled_from(DESCRIPTIONS)) for _ in ids],
            "text_unit_ids": [draw(_some(units)) for _ in ids],
        },
        "relationships": {
            "id": [r for r, _, _ in relationships],
            "human_readable_id": list(range(len(relationships))),
            "source": [s for _, s, _ in relationships],
            "target": [t for _, _, t in relationships],
            "description": [draw(st.sampled_from(DESCRIPTIONS)) for _ in relationships],
            "weight": [1.0 for _ in relationships],
            "text_unit_ids": [draw(_some(units, min_size=0)) for _ in relationships],
        },
    }


@st.composite
def langchain_records(draw: st.DrawFn, number: int) -> list[dict[str, Any]]:
    """Graph documents of one source file: nodes named from the shared names (or ids)."""
    records = []
    for _ in range(draw(st.integers(1, 2))):
        nodes = [
            {
                "id": node_id,
                "type": draw(st.sampled_from(LABELS)),
                "properties": {"description": d}
                if (d := draw(st.sampled_from(DESCRIPTIONS)))
                else {},
            }
            for node_id in draw(_some(NAMES + ENTITY_IDS[:1]))
        ]
        relationships = [
            {
                "source": draw(st.sampled_from(nodes)),
                "target": draw(st.sampled_from(nodes)),
                "type": draw(st.sampled_from(RELATION_TYPES)),
                "properties": {},
            }
            for _ in range(draw(st.integers(0, 2)))
        ]
        records.append(
            {
                "nodes": nodes,
                "relationships": relationships,
                "source": {
                    "id": None,
                    "metadata": {"source": f"file-{number}.txt"},
                    "page_content": draw(st.sampled_from(TEXTS)),
                    "type": "Document",
                },
            }
        )
    return records


@st.composite
def loads(
    draw: st.DrawFn,
    number: int,
    formats: tuple[str, ...] = FILE_FORMATS,
    graphs: dict[str, list[dict[str, Any]]] | None = None,
) -> Load:
    """One load of one of `formats`; a graph format's reads `graphs[format]`, drawn on first
    use (so every load of that layout in a sequence reads the same graph)."""
    workspace = draw(st.sampled_from(WORKSPACES))
    kind = draw(st.sampled_from(formats))
    if kind == "bundle":
        return Load(workspace, kind, number, draw(bundle_lines(workspace, number)))
    if kind == "graphrag":
        return Load(workspace, kind, number, draw(graphrag_tables(number)))
    if kind in GRAPH_FORMATS:
        graphs = {} if graphs is None else graphs
        if kind not in graphs:
            graphs[kind] = draw(langchain_records(100 + GRAPH_FORMATS.index(kind)))
        return Load(workspace, kind, number, GraphLoad(graphs[kind], draw(st.booleans())))
    return Load(workspace, kind, number, draw(langchain_records(number)))


@st.composite
def load_sequences(
    draw: st.DrawFn,
    min_size: int = 2,
    max_size: int = 3,
    formats: tuple[str, ...] = FILE_FORMATS,
    at_least_one_of: tuple[str, ...] = (),
) -> list[Load]:
    """Loads one after another, into either workspace, each with documents of its own (a graph
    format's: the sequence's graph of its layout); one of them, at least, of `at_least_one_of`
    when given."""
    count = draw(st.integers(min_size, max_size))
    forced = draw(st.integers(1, count)) if at_least_one_of else None
    graphs: dict[str, list[dict[str, Any]]] = {}
    return [
        draw(loads(number, at_least_one_of if number == forced else formats, graphs))
        for number in range(1, count + 1)
    ]
