"""`load --from`'s rules that need no database (ingest/source_graph_import.py): the address it
is given, the refusal of a source of neither layout, and the progress line. On the real Neo4j:
tests/test_load_from_neo4j.py."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph.source_graph import LLM_GRAPH_BUILDER, NEO4J_GRAPHRAG, FoundNames
from ingest.source_graph_import import (
    LISTED_NAMES,
    NotASourceGraph,
    ReadProgress,
    SourceAddress,
    check_layout,
    parse_source_uri,
)


@pytest.mark.parametrize(
    "uri",
    ["bolt://neo4j:secret@kg-host:7687/kg", "neo4j+s://reader@kg-host", "bolt://:pw@kg-host"],
)
def test_a_user_or_password_in_the_from_address_is_refused(uri: str) -> None:
    with pytest.raises(NotASourceGraph, match="SOURCE_NEO4J_USER and SOURCE_NEO4J_PASSWORD"):
        parse_source_uri(uri)


def test_the_from_address_names_a_server_and_at_most_one_database() -> None:
    assert parse_source_uri("bolt://kg-host:7687/kg") == SourceAddress("bolt://kg-host:7687", "kg")
    assert parse_source_uri("neo4j+s://kg-host/") == SourceAddress("neo4j+s://kg-host", None)
    for wrong in ("http://kg-host:7474", "kg-host:7687", "bolt:///kg", "bolt://kg-host/a/b"):
        with pytest.raises(NotASourceGraph, match="--from"):
            parse_source_uri(wrong)


def test_a_source_laid_out_as_the_other_format_is_refused_with_the_format_to_use() -> None:
    found = FoundNames(("Chunk", "Document", "__Entity__"), ("HAS_ENTITY", "PART_OF"))
    check_layout(found, LLM_GRAPH_BUILDER)
    with pytest.raises(NotASourceGraph, match="load it with --format llm-graph-builder"):
        check_layout(found, NEO4J_GRAPHRAG)


@given(
    labels=st.lists(st.text(min_size=1), max_size=60, unique=True),
    types=st.lists(st.text(min_size=1), max_size=3, unique=True),
)
def test_a_source_of_neither_layout_is_refused_naming_its_labels_and_types_printably(
    labels: list[str], types: list[str]
) -> None:
    found = FoundNames(tuple(sorted(labels)), tuple(sorted(t for t in types if t != "PART_OF")))
    with pytest.raises(NotASourceGraph) as refused:
        check_layout(found, LLM_GRAPH_BUILDER if "Chunk" in labels else NEO4J_GRAPHRAG)
    message = str(refused.value)
    assert "matches neither" in message or "load it with --format" in message
    # What the source holds reaches the terminal printable: no control or invisible character
    # (an escape sequence in a label would otherwise act on the reader's terminal).
    assert message.isprintable(), message
    if "matches neither" in message:
        for name in found.labels[:LISTED_NAMES] + found.relationship_types:
            assert name in message or repr(name) in message
        if len(labels) > LISTED_NAMES:
            assert f"and {len(labels) - LISTED_NAMES} more" in message


def test_a_plain_source_of_neither_layout_is_refused_naming_it_as_it_is() -> None:
    with pytest.raises(NotASourceGraph) as refused:
        check_layout(FoundNames(("Book", "Passage"), ("OF",)), NEO4J_GRAPHRAG)
    assert "it holds labels: Book, Passage; relationship types: OF" in str(refused.value)


def test_the_progress_line_says_each_kind_read_of_its_total_at_most_once_an_interval() -> None:
    stream = io.StringIO()
    quiet = ReadProgress("bolt://kg-host:7687", {"chunks": 2500}, stream, interval=3600)
    quiet("chunks", 1000, False)  # within the interval: no line
    quiet("chunks", 2500, True)
    quiet("entity links", 4000, True)
    assert stream.getvalue().splitlines() == [
        "read bolt://kg-host:7687: chunks 2,500 of 2,500",
        "read bolt://kg-host:7687: entity links 4,000",
    ]
    stream = io.StringIO()
    every_page = ReadProgress("bolt://kg-host:7687", {"chunks": 2500}, stream, interval=0)
    every_page("chunks", 1000, False)
    every_page("chunks", 2000, False)
    assert stream.getvalue().splitlines() == [
        "read bolt://kg-host:7687: chunks 1,000 of 2,500",
        "read bolt://kg-host:7687: chunks 2,000 of 2,500",
    ]
