"""`evidencegraph load` names each document it loaded and what it did with it, and
`evidencegraph documents` lists the documents a reader could see, with their workspaces: what an
operator needs for `delete --document` and for an API key (README, "Loading your own data")."""

from __future__ import annotations

from pathlib import Path

from graph.driver import Graph
from tests.support.load_helpers import Cli, bundle_line, uid, write_bundle

HEADER = "id\tworkspace\tversion\tpassages\ttitle"


def document_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("document ")]


async def test_load_prints_each_document_id_and_whether_it_was_new_a_new_version_or_unchanged(
    cli: Cli, graph: Graph, tmp_path: Path
) -> None:
    first = bundle_line(1, [(1, "Ada wrote notes.")])
    other = bundle_line(2, [(2, "Babbage built engines.")], workspace="globex")
    path = write_bundle(tmp_path / "v1.jsonl", [first, other])
    loaded = await cli.run("load", str(path))
    assert loaded.code == 0, loaded.err
    assert document_lines(loaded.out) == [
        f"document {uid('d', 1)} (new) in acme: doc 1",
        f"document {uid('d', 2)} (new) in globex: doc 2",
    ]

    changed = bundle_line(1, [(3, "Ada wrote longer notes.")])
    again = await cli.run("load", str(write_bundle(tmp_path / "v2.jsonl", [changed, other])))
    assert again.code == 0, again.err
    assert document_lines(again.out) == [
        f"document {uid('d', 1)} (new version) in acme: doc 1",
        f"document {uid('d', 2)} (unchanged) in globex: doc 2",
    ]


async def test_a_rejected_line_prints_no_document_line(
    cli: Cli, graph: Graph, tmp_path: Path
) -> None:
    good = bundle_line(1, [(1, "Ada wrote notes.")])
    path = write_bundle(tmp_path / "bundle.jsonl", [good, '{"document": 1}'])
    loaded = await cli.run("load", str(path))
    assert loaded.code == 2
    assert document_lines(loaded.out) == [f"document {uid('d', 1)} (new) in acme: doc 1"]


async def test_documents_lists_id_workspace_version_passages_title_then_the_workspaces(
    cli: Cli, graph: Graph, tmp_path: Path
) -> None:
    lines = [
        bundle_line(1, [(1, "Ada wrote notes."), (2, "On the engine.")]),
        bundle_line(2, [(3, "Babbage built engines.")], workspace="globex"),
        bundle_line(3, [(4, "Lovelace again.")]),
    ]
    await cli.run("load", str(write_bundle(tmp_path / "v1.jsonl", lines)))
    lines[0] = bundle_line(1, [(5, "Ada wrote the notes, version two.")])
    await cli.run("load", str(write_bundle(tmp_path / "v2.jsonl", lines)))

    listed = await cli.run("documents")
    assert listed.code == 0, listed.err
    assert listed.out.splitlines() == [
        HEADER,
        f"{uid('d', 1)}\tacme\t2\t1\tdoc 1",
        f"{uid('d', 3)}\tacme\t1\t1\tdoc 3",
        f"{uid('d', 2)}\tglobex\t1\t1\tdoc 2",
        "workspaces: acme (2 documents, 2 passages), globex (1 document, 1 passages)",
    ]


async def test_documents_of_one_workspace_lists_only_that_workspace(
    cli: Cli, graph: Graph, tmp_path: Path
) -> None:
    lines = [
        bundle_line(1, [(1, "Ada wrote notes.")]),
        bundle_line(2, [(2, "Babbage built engines.")], workspace="globex"),
    ]
    await cli.run("load", str(write_bundle(tmp_path / "bundle.jsonl", lines)))
    listed = await cli.run("documents", "--workspace", "globex")
    assert listed.out.splitlines() == [
        HEADER,
        f"{uid('d', 2)}\tglobex\t1\t1\tdoc 2",
        "workspaces: globex (1 document, 1 passages)",
    ]
    empty = await cli.run("documents", "--workspace", "initech")
    assert empty.code == 0
    assert empty.out.splitlines() == [HEADER, "workspaces: none"]
    assert "no document in workspace initech" in empty.err


async def test_a_deleted_document_is_not_listed(cli: Cli, graph: Graph, tmp_path: Path) -> None:
    lines = [bundle_line(1, [(1, "Ada wrote notes.")]), bundle_line(2, [(2, "Babbage.")])]
    await cli.run("load", str(write_bundle(tmp_path / "bundle.jsonl", lines)))
    deleted = await cli.run("delete", "--document", uid("d", 1))
    assert deleted.code == 0, deleted.err
    listed = await cli.run("documents")
    assert [line.split("\t")[0] for line in listed.out.splitlines()[1:-1]] == [uid("d", 2)]


async def test_a_title_with_escape_sequences_is_printed_escaped_by_load_and_documents(
    cli: Cli, graph: Graph, tmp_path: Path
) -> None:
    hostile = "Q3\x1b]8;;http://evil.example\x07report\x1b[2J\r\nforged\tcolumn\u202e"
    line = bundle_line(1, [(1, "Ada wrote notes.")])
    line["document"]["title"] = hostile
    loaded = await cli.run("load", str(write_bundle(tmp_path / "bundle.jsonl", [line])))
    listed = await cli.run("documents")
    escaped = "Q3\\x1b]8;;http://evil.example\\x07report\\x1b[2J\\r\\nforged\\tcolumn\\u202e"
    assert document_lines(loaded.out) == [f"document {uid('d', 1)} (new) in acme: {escaped}"]
    assert listed.out.splitlines()[1] == f"{uid('d', 1)}\tacme\t1\t1\t{escaped}"
    for out in (loaded.out, listed.out):
        assert not any(char in out for char in "\x1b\x07\r\u202e"), out
