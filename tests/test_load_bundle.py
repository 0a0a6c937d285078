"""`evidencegraph load` of a bundle (contract §10) on the real Neo4j: bad lines are reported and
skipped, good ones load, reloads are idempotent, changed lines write the next version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract.graph_owned import SERVICE_LABELS
from contract.scope import Scope
from graph import jobs, lookups
from graph.driver import Graph
from tests.support.load_helpers import (
    Cli,
    bundle_line,
    entity,
    graph_counts,
    relation,
    uid,
    write_bundle,
)


async def visible_passages(graph: Graph, passage_ids: list[str]) -> set[str]:
    records = await lookups.passages_by_id(graph, Scope(("acme",)), passage_ids)
    return {record.id for record in records if record is not None}


def good(document: int) -> dict[str, Any]:
    """A valid line of its own: one passage, one entity mentioning it."""
    return bundle_line(
        document,
        [(document, f"Passage of document {document}.")],
        entities=[entity(document, f"Person {document}", [document])],
    )


def bad_lines() -> dict[int, tuple[dict[str, Any] | str, str]]:
    """Line number -> (the line, a fragment of the reason it is rejected for)."""
    missing_text = good(12)
    del missing_text["passages"][0]["text"]
    unknown_passage = good(13)
    unknown_passage["entities"][0]["mentions"].append(uid("p", 999))
    unknown_entity = good(14)
    unknown_entity["relations"] = [relation(14, 14, 998, [14])]
    not_uuid = good(15)
    not_uuid["document"]["id"] = "document-15"
    wrong_length = good(16)
    wrong_length["passages"][0]["embedding"] = [0.5, 0.5, 0.5]
    return {
        2: ('{"document": {"id": ', "invalid JSON"),
        4: (missing_text, "passages[0].text: is missing"),
        5: (unknown_passage, f"entities[0].mentions[1]: passage {uid('p', 999)} is neither"),
        6: (unknown_entity, f"relations[0].target: entity {uid('e', 998)} is neither"),
        8: (not_uuid, 'document.id: "document-15" is not a canonical lowercase UUID'),
        9: (wrong_length, "passages[0].embedding: has 3 numbers, expected 8"),
    }


def mixed_bundle(path: Path) -> Path:
    bad = bad_lines()
    lines = [bad[n][0] if n in bad else good(n) for n in range(1, 11)]
    return write_bundle(path, lines)


async def test_good_lines_load_and_each_bad_line_is_reported_by_number_with_exit_code_2(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    bundle = mixed_bundle(tmp_path / "mixed.jsonl")
    run = await cli.run("load", str(bundle))
    assert run.code == 2, run.err
    for number, (_, reason) in bad_lines().items():
        assert f"{bundle}: line {number}: " in run.err and reason in run.err, (number, run.err)
    reported = [line for line in run.err.splitlines() if f"{bundle}: line " in line]
    assert len(reported) == len(bad_lines()), reported
    assert "documents: 4 loaded, 0 unchanged, 6 rejected (of 10)" in run.out


async def test_nothing_of_a_rejected_line_is_written(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    bundle = mixed_bundle(tmp_path / "mixed.jsonl")
    await cli.run("load", str(bundle))
    loaded = [1, 3, 7, 10]
    documents = await graph.read("MATCH (d:Document) RETURN d.id AS id ORDER BY id", {})
    assert [row["id"] for row in documents] == [uid("d", n) for n in loaded]
    counts = await graph_counts(graph)
    assert (counts[":Job"], counts[":Chunk"], counts[":Entity"]) == (4, 4, 4), counts
    everything = [uid("p", n) for n in range(1, 17)]
    assert await visible_passages(graph, everything) == {uid("p", n) for n in loaded}


async def test_loading_the_same_file_twice_writes_nothing_the_second_time(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    lines = [
        bundle_line(1, [(1, "Ada met Grace."), (2, "Grace wrote a compiler.")],
         entities=[entity(1, "Ada", [1]), entity(2, "Grace", [1, 2])],
         relations=[relation(1, 1, 2, [1])]),
        bundle_line(2, [(3, "Linus met Ada.")],
         entities=[entity(3, "Linus", [3]), entity(1, "Ada", [3])],
         relations=[relation(2, 3, 1, [3])]),
    ]  # fmt: skip
    bundle = write_bundle(tmp_path / "twice.jsonl", lines)
    first = await cli.run("load", str(bundle))
    assert first.code == 0, first.err
    before = await graph_counts(graph)
    second = await cli.run("load", str(bundle))
    assert second.code == 0, second.err
    assert "documents: 0 loaded, 2 unchanged, 0 rejected (of 2)" in second.out
    assert "written: 0 passages, 0 entities, 0 relations" in second.out
    assert await graph_counts(graph) == before
    assert before[":Entity"] == 3 and before["-KNOWS-"] == 2 and before[":Job"] == 2, before


async def test_a_changed_line_writes_the_next_version_and_supersedes_the_previous_passages(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    first = write_bundle(tmp_path / "v1.jsonl", [bundle_line(1, [(1, "old"), (2, "text")])])
    second = write_bundle(tmp_path / "v2.jsonl", [bundle_line(1, [(3, "new text")])])
    assert (await cli.run("load", str(first))).code == 0
    run = await cli.run("load", str(second))
    assert run.code == 0, run.err
    assert "documents: 1 loaded" in run.out
    every = [uid("p", n) for n in (1, 2, 3)]
    assert await visible_passages(graph, every) == {uid("p", 3)}
    rows = await graph.read("MATCH (d:Document) RETURN d.currentVersion AS version", {})
    assert [row["version"] for row in rows] == [2]


async def test_a_changed_line_that_reuses_stored_passage_ids_is_rejected(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    first = write_bundle(tmp_path / "v1.jsonl", [bundle_line(1, [(1, "old text")])])
    reused = write_bundle(tmp_path / "v2.jsonl", [bundle_line(1, [(1, "edited text")])])
    assert (await cli.run("load", str(first))).code == 0
    run = await cli.run("load", str(reused))
    assert run.code == 2
    assert (
        f"line 1: passages[0].id: {uid('p', 1)} is already a passage of this document "
        "(version 1); a new version needs new passage ids"
    ) in run.err
    texts = await graph.read("MATCH (c:Chunk) RETURN c.text AS text", {})
    assert [row["text"] for row in texts] == ["old text"]


async def test_relations_and_mentions_may_point_into_an_earlier_document(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    earlier = bundle_line(
        1, [(1, "Ada met Grace.")], entities=[entity(1, "Ada", [1]), entity(2, "Grace", [1])]
    )
    later = bundle_line(
        2,
        [(2, "Linus read about it.")],
        entities=[entity(3, "Linus", [2, 1])],  # mentions a passage of document 1
        relations=[
            relation(1, 1, 2, [1]),  # both ends and the support are document 1's
            relation(2, 3, 1, [2]),  # an end is document 1's
        ],
    )
    write_bundle(tmp_path / "one.jsonl", [earlier])
    write_bundle(tmp_path / "two.jsonl", [later])
    for name in ("one.jsonl", "two.jsonl"):
        run = await cli.run("load", str(tmp_path / name))
        assert run.code == 0, run.err
    rows = await graph.read(
        "MATCH (s)-[r:KNOWS]->(t) RETURN s.name AS s, t.name AS t, r.passageIds AS support"
        " ORDER BY s",
        {},
    )
    assert [(r["s"], r["t"], r["support"]) for r in rows] == [
        ("Ada", "Grace", [uid("p", 1)]),
        ("Linus", "Ada", [uid("p", 2)]),
    ]
    mentioned = await graph.read(
        "MATCH (:Entity {name: 'Linus'})-[:MENTIONED_IN]->(c) RETURN c.id AS id ORDER BY id", {}
    )
    assert [row["id"] for row in mentioned] == [uid("p", 1), uid("p", 2)]


async def test_an_entity_in_several_documents_is_one_node_with_every_label_and_mention(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    lines = [
        bundle_line(1, [(1, "Ada, mathematician.")], entities=[entity(1, "Ada", [1])]),
        bundle_line(2, [(2, "Ada, writer.")], entities=[entity(1, "Ada", [2], label="Author")]),
    ]
    bundle = write_bundle(tmp_path / "merge.jsonl", lines)
    assert (await cli.run("load", str(bundle))).code == 0
    rows = await graph.read(
        "MATCH (e:Entity) OPTIONAL MATCH (e)-[:MENTIONED_IN]->(c)"
        " RETURN e.id AS id, [label IN labels(e) WHERE NOT label IN $service] AS labels,"
        " count(c) AS mentions",
        {"service": list(SERVICE_LABELS)},  # NameKeyed: the service's own (graph/name_key.py)
    )
    assert len(rows) == 1
    assert rows[0]["id"] == uid("e", 1) and rows[0]["mentions"] == 2
    assert set(rows[0]["labels"]) == {"Entity", "Person", "Author"}


async def test_a_document_cannot_move_to_another_workspace(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    first = write_bundle(tmp_path / "acme.jsonl", [bundle_line(1, [(1, "text")])])
    moved = bundle_line(1, [(2, "other text")], workspace="globex")
    second = write_bundle(tmp_path / "globex.jsonl", [moved])
    assert (await cli.run("load", str(first))).code == 0
    run = await cli.run("load", str(second))
    assert run.code == 2
    assert (
        f"line 1: document.workspace: document {uid('d', 1)} belongs to workspace 'acme', "
        "not 'globex'"
    ) in run.err
    jobs_written = await graph.read("MATCH (j:Job) RETURN count(j) AS n", {})
    assert jobs_written[0]["n"] == 1


async def test_a_load_interrupted_midway_says_to_recover_and_then_loads(
    graph: Graph,
    tmp_path: Path,
    cli: Cli,
) -> None:
    line = bundle_line(1, [(1, "first"), (2, "second")])
    bundle = write_bundle(tmp_path / "interrupted.jsonl", [line])
    # What a load killed after its first batch leaves: a RUNNING job with part of the line.
    job = await jobs.begin_job(graph, uid("d", 1), "acme")
    await jobs.write_passages(graph, job, [{"id": uid("p", 1), "position": 0, "text": "first"}])

    run = await cli.run("load", str(bundle))
    assert run.code == 2
    assert f"written by job {job.id}, which never finished" in run.err
    assert "`evidencegraph jobs recover --older-than 0s`" in run.err

    recover = ["jobs", "recover", "--older-than", "0s"]
    assert (await cli.run(*recover)).code == 0
    run = await cli.run("load", str(bundle))
    assert run.code == 0, run.err
    assert await visible_passages(graph, [uid("p", 1), uid("p", 2)]) == {uid("p", 1), uid("p", 2)}
