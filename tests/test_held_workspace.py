"""A load, and a delete, held to the workspace it is meant for (contract §10): "`load --workspace
W` with a bundle holds every line to W: a line naming another workspace is refused with its
line number (a line naming none takes W). `delete --document D --workspace W` refuses a D
outside W." A platform loading the bundles its tenants hand in holds each to its tenant's
workspace this way; without it a line naming workspace A writes as A.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contract.scope import Scope
from graph import lookups, retirement
from graph.driver import Graph
from ingest.bundle import LineError, parse_line
from ingest.document_version import DocumentVersion
from ingest.load_progress import rejection_line
from ingest.load_report import Rejection
from tests.conftest import TEST_DIMENSION
from tests.support.graph_builder import GraphBuilder
from tests.support.load_helpers import (
    Cli,
    bundle_line,
    entity,
    loader,
    relation,
    uid,
    version_of,
    write_bundle,
)

ACME = Scope(("acme",))
GLOBEX = Scope(("globex",))
ABSENT = object()  # a line whose document has no `workspace` key at all


def line_naming(named: object) -> str:
    """A valid line of document 1 whose `document.workspace` is `named` (ABSENT: no key)."""
    line = bundle_line(1, [(1, "Ada wrote.")], entities=[entity(1, "Ada", [1])])
    if named is ABSENT:
        del line["document"]["workspace"]
    else:
        line["document"]["workspace"] = named
    return json.dumps(line)


def look_alikes(held: str) -> st.SearchStrategy[str]:
    """Names a person would read as `held`, and are not."""
    return st.sampled_from(
        [
            held.upper(),
            held.lower(),
            held.casefold(),
            f" {held}",
            f"{held}\u200b",  # a zero-width space
            f"{held}\u202e",  # a right-to-left override
            unicodedata.normalize("NFD", held),
            unicodedata.normalize("NFKC", held),
            held.replace("a", "\u0430"),  # Cyrillic а
        ]
    )


@st.composite
def held_and_named(draw: st.DrawFn) -> tuple[str, object]:
    held = draw(st.text(min_size=1, max_size=30).filter(str.strip))
    named = draw(
        st.one_of(
            st.just(held),
            st.just(ABSENT),
            st.none(),
            look_alikes(held),
            st.text(max_size=30),  # every code point: controls, surrogates, format characters
            st.text(min_size=200, max_size=5000),
            st.integers(),
            st.lists(st.just(held), max_size=2),
            st.dictionaries(st.just("name"), st.just(held), max_size=1),
        )
    )
    return held, named


@given(held_and_named())
def test_a_held_line_naming_another_workspace_is_refused_and_one_naming_none_takes_the_held_one(
    case: tuple[str, object],
) -> None:
    held, named = case
    parsed = parse_line(line_naming(named), dimensions=TEST_DIMENSION, workspace=held)
    if named is ABSENT or named is None or named == held:
        assert isinstance(parsed, DocumentVersion), parsed
        assert parsed.document.workspace == held
        return
    assert isinstance(parsed, LineError), (held, named)
    assert parsed.reason.startswith("document.workspace: "), parsed.reason
    if isinstance(named, str):
        assert parsed.reason.startswith("document.workspace: names workspace "), parsed.reason
        assert parsed.reason.endswith(" (--workspace): every line must name it, or name none"), (
            parsed.reason
        )
    else:
        assert parsed.reason.startswith("document.workspace: must be a string, got "), parsed
    # However long or strange the name, the reason quotes a bounded part of it, and its line
    # on the terminal is one line of printable characters.
    assert len(parsed.reason) <= 300, len(parsed.reason)
    shown = rejection_line("tenant.jsonl: line", Rejection(7, parsed.reason))
    assert shown.startswith("tenant.jsonl: line 7: document.workspace: ")
    assert shown.isprintable(), shown


def test_a_line_naming_no_workspace_is_refused_when_the_load_is_held_to_none() -> None:
    parsed = parse_line(line_naming(ABSENT), dimensions=TEST_DIMENSION)
    assert parsed == LineError("document.workspace: is missing")


async def globex_with_gus(graph: Graph) -> dict[str, Any]:
    """Workspace globex: document 5, whose passage mentions Gus (entity 5)."""
    line = bundle_line(
        5, [(5, "Gus runs Globex.")], workspace="globex", entities=[entity(5, "Gus", [5])]
    )
    assert await loader(graph).load_line(version_of(line)) is None
    return line


async def test_load_held_to_a_workspace_refuses_each_line_naming_another_by_number_and_writes_nothing_of_it(  # noqa: E501
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    await globex_with_gus(graph)
    names_none = bundle_line(2, [(2, "Grace met Ada.")], entities=[entity(2, "Grace", [2])],
                             relations=[relation(1, 2, 1, [2])])  # fmt: skip
    del names_none["document"]["workspace"]
    names_null = bundle_line(3, [(3, "Bo wrote.")], entities=[entity(3, "Bo", [3])])
    names_null["document"]["workspace"] = None
    # A tenant's line naming globex: a new version of globex's document, renaming its Gus.
    takeover = bundle_line(
        5, [(6, "Mallory owns Globex.")], workspace="globex", entities=[entity(5, "Mallory", [6])]
    )
    look_alike = bundle_line(4, [(4, "Eve.")], workspace="acme\u200b")
    tenant = write_bundle(
        tmp_path / "tenant.jsonl",
        [
            bundle_line(1, [(1, "Ada wrote.")], entities=[entity(1, "Ada", [1])]),
            names_none,
            takeover,
            look_alike,
            names_null,
        ],
    )

    run = await cli.run("load", "--workspace", "acme", str(tenant))

    assert run.code == 2, run.err
    held = 'but this load is held to workspace "acme" (--workspace)'
    assert f'{tenant}: line 3: document.workspace: names workspace "globex", {held}' in run.err
    assert f'{tenant}: line 4: document.workspace: names workspace "acme\\u200b", {held}' in (
        run.err
    )
    assert "documents: 3 loaded, 0 unchanged, 2 rejected (of 5)" in run.out, run.out
    documents = await graph.read(
        "MATCH (d:Document) RETURN d.id AS id, d.workspace AS workspace ORDER BY id", {}
    )
    assert [(row["id"], row["workspace"]) for row in documents] == [
        (uid("d", 1), "acme"),
        (uid("d", 2), "acme"),
        (uid("d", 3), "acme"),
        (uid("d", 5), "globex"),
    ]
    [gus] = await lookups.entities_by_id(graph, GLOBEX, [uid("e", 5)])
    assert gus is not None and gus.name == "Gus"
    [passage] = await lookups.passages_by_id(graph, GLOBEX, [uid("p", 5)])
    assert passage is not None and passage.version == 1
    assert await graph.read("MATCH (c:Chunk {id: $id}) RETURN c", {"id": uid("p", 6)}) == []
    [grace] = await lookups.entities_by_id(graph, ACME, [uid("e", 2)])
    assert grace is not None and grace.name == "Grace"


async def visible(graph: Graph, scope: Scope, passage_ids: list[str]) -> list[str]:
    found = await lookups.passages_by_id(graph, scope, passage_ids)
    return [passage.id for passage in found if passage is not None]


async def test_delete_held_to_a_workspace_refuses_a_document_outside_it_and_deletes_nothing(
    graph: Graph, builder: GraphBuilder, cli: Cli
) -> None:
    mine = await builder.version("acme", ["mine"])
    theirs = await builder.version("globex", ["theirs"])
    run = await cli.run(
        "delete", "--document", mine.document_id, theirs.document_id, "--workspace", "acme"
    )
    assert run.code == 2, run.err
    assert (
        f"error: no document of workspace 'acme' has the id {theirs.document_id}; nothing was "
        "deleted"
    ) in run.err, run.err
    assert await visible(graph, ACME, mine.passage_ids) == mine.passage_ids
    assert await visible(graph, GLOBEX, theirs.passage_ids) == theirs.passage_ids

    run = await cli.run("delete", "--document", mine.document_id, "--workspace", "acme")
    assert run.code == 0, run.err
    assert "documents: 1 deleted, 0 deleted before (of 1)" in run.out
    assert await visible(graph, ACME, mine.passage_ids) == []
    assert await visible(graph, GLOBEX, theirs.passage_ids) == theirs.passage_ids


async def test_delete_held_to_a_workspace_leaves_a_document_moved_out_of_it_after_the_check(
    graph: Graph, builder: GraphBuilder, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another pipeline moves the document to globex between the command's listing of acme's
    documents and its retirements: the retirement, held to acme, leaves it alone."""
    moved = await builder.version("acme", ["moved"])
    real = retirement.documents_of_workspace

    async def list_then_move(graph: Graph, workspace: str) -> Any:
        listed = await real(graph, workspace)
        await graph.write(
            "MATCH (d:Document {id: $id}) SET d.workspace = 'globex'", {"id": moved.document_id}
        )
        return listed

    monkeypatch.setattr("commands.delete_command.documents_of_workspace", list_then_move)
    run = await cli.run("delete", "--workspace", "acme")
    assert run.code == 0, run.err
    assert "documents: 0 deleted, 0 deleted before, 1 purged or moved meanwhile" in run.out
    assert await visible(graph, GLOBEX, moved.passage_ids) == moved.passage_ids
