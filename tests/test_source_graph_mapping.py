"""The mapping of `load --from` (ingest/source_graph_mapping.py) on hostile source graphs, without
a database: labels, relationship types, names and property values drawn to break Cypher or the
graph's model map to lines the bundle's own checks accept, with only the labels and types the
naming rule allows (graph/cypher_names.py), or are refused with a reason. On the real Neo4j:
tests/test_load_from_neo4j.py.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contract.graph_owned import GRAPH_OWNED_LABELS, GRAPH_OWNED_RELATION_TYPES
from graph.cypher_names import is_load_name
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
from tests.support.source_server import HOSTILE_NAMES

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
