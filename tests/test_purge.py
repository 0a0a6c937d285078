"""`evidencegraph purge` (contract §11): superseded versions, failed jobs' leftovers and
deleted documents leave the store; no answer changes; nothing a job under way needs goes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from contract.scope import Scope
from graph import jobs, lookups
from graph import purge as purge_statements
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.purge import purge
from ingest.deletion import delete_documents
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.answers import answers
from tests.support.graph_builder import GraphBuilder, Version, unit_vector
from tests.support.load_helpers import Cli, bundle_line, entity, uid, write_bundle

QUERY = "analyst"
NOW = timedelta(seconds=0)


@pytest.fixture
async def client(neo4j_uri: str, graph: Graph) -> AsyncIterator[Client]:
    """The app, with time for the many first plans of a loaded machine."""
    async with serving(neo4j_uri, graph, REQUEST_TIMEOUT_SECONDS="600") as test_client:
        yield test_client


@dataclass
class World:
    """P: version 1 (Ada, Grace | Zed) superseded by version 2 (Ada, Grace), so Zed's only
    mention is superseded (UNSUPPORTED). F: version 1 committed, version 2 FAILED and not
    cleaned up (its passage and staging are left). R: deleted (Rita only there). G (globex):
    Linus, and Solo, an entity no passage mentions. K: version 1 (Kim) superseded by version 2
    (no Kim), then a version 3 that mentions Kim FAILED: Kim's last published word is the
    superseded passage, which a FAILED job's passage never replaces (it counts for nothing)."""

    p1: Version
    p2: Version
    f1: Version
    f2: Version
    r: Version
    g: Version
    k: tuple[Version, Version, Version]
    names: dict[str, str]

    @property
    def passage_ids(self) -> list[str]:
        versions = (self.p1, self.p2, self.f1, self.f2, self.r, self.g, *self.k)
        return [p for version in versions for p in version.passage_ids]

    @property
    def document_ids(self) -> list[str]:
        return [
            self.p1.document_id,
            self.f1.document_id,
            self.r.document_id,
            self.g.document_id,
            self.k[0].document_id,
        ]


def analysts(names: dict[str, list[int]]) -> dict[str, Sequence[int]]:
    return {f"{name} Analyst": mentions for name, mentions in names.items()}


def vectors(count: int, start: int) -> dict[int, list[float]]:
    return {i: unit_vector(TEST_DIMENSION, start + i) for i in range(count)}


async def build_world(graph: Graph, builder: GraphBuilder) -> World:
    p1 = await builder.version(
        "acme",
        ["Ada and Grace, analysts, met.", "Zed the analyst taught Grace."],
        mentions=analysts({"Ada": [0], "Grace": [0, 1], "Zed": [1]}),
        relations=[
            ("Ada Analyst", "KNOWS", "Grace Analyst", [0]),
            ("Grace Analyst", "TAUGHT", "Zed Analyst", [1]),
        ],
        passage_vectors=vectors(2, 0),
    )
    p2 = await builder.version(
        "acme",
        ["Ada and Grace, analysts, met again."],
        document_id=p1.document_id,
        mentions=analysts({"Ada": [0], "Grace": [0]}),
        relations=[("Ada Analyst", "MET", "Grace Analyst", [0])],
        passage_vectors=vectors(1, 2),
    )
    f1 = await builder.version(
        "acme", ["Bo, an analyst."], mentions=analysts({"Bo": [0]}), passage_vectors=vectors(1, 3)
    )
    f2 = await builder.version(
        "acme",
        ["Bo and Ghost, analysts."],
        document_id=f1.document_id,
        mentions=analysts({"Bo": [0], "Ghost": [0]}),
        passage_vectors=vectors(1, 4),
        fail=True,
    )
    await graph.write(  # as `jobs.fail_job` marks it
        "MATCH (j:Job {id: $id}) SET j.finishedAt = datetime()", {"id": f2.job.id}
    )
    r = await builder.version(
        "acme",
        ["Rita the analyst.", "Grace, analyst, again."],
        mentions=analysts({"Rita": [0], "Grace": [1]}),
        relations=[("Rita Analyst", "KNOWS", "Grace Analyst", [0])],
        passage_vectors=vectors(2, 5),
    )
    g = await builder.version(
        "globex",
        ["Linus, analyst."],
        mentions=analysts({"Linus": [0], "Solo": []}),
        relations=[("Linus Analyst", "LINKED", "Grace Analyst", None)],
        passage_vectors=vectors(1, 7),
    )
    k1 = await builder.version(
        "acme", ["Kim, an analyst."], mentions=analysts({"Kim": [0]}), passage_vectors=vectors(1, 8)
    )
    k2 = await builder.version(
        "acme", ["Nobody here."], document_id=k1.document_id, passage_vectors=vectors(1, 9)
    )
    k3 = await builder.version(
        "acme",
        ["Kim, an analyst, again."],
        document_id=k1.document_id,
        mentions=analysts({"Kim": [0]}),
        passage_vectors=vectors(1, 10),
        fail=True,
    )
    await graph.write(  # as `jobs.fail_job` marks it
        "MATCH (j:Job {id: $id}) SET j.finishedAt = datetime()", {"id": k3.job.id}
    )
    # The service's writer links a job's mentions only at its commit; another pipeline may
    # have linked this one while its job ran (contract §2).
    await graph.write(
        "MATCH (e:Entity {id: $entity}), (c:Chunk {id: $passage}) MERGE (e)-[:MENTIONED_IN]->(c)",
        {"entity": builder.entity_id("Kim Analyst"), "passage": k3.passage_ids[0]},
    )
    await delete_documents(graph, [r.document_id])
    await apply_schema(graph, TEST_DIMENSION, labels=["Person"])
    names = {
        name: builder.entity_id(f"{name} Analyst")
        for name in ("Ada", "Grace", "Zed", "Bo", "Rita", "Linus", "Solo", "Kim")
    }
    return World(p1, p2, f1, f2, r, g, (k1, k2, k3), names)


async def everything(client: Client, world: World) -> dict[str, Any]:
    """Every answer about the world, in every scope that tells its documents apart. Scores
    are left out: Lucene's statistics count the documents an index holds."""
    found: dict[str, Any] = {}
    scopes: list[dict[str, Any] | None] = [
        None,
        {"workspaces": ["acme"]},
        {"documentIds": [world.p1.document_id]},
        {"documentIds": [world.r.document_id]},
    ]
    for scope in scopes:
        found[str(scope)] = await answers(
            client,
            query=QUERY,
            entity_ids=list(world.names.values()),
            passage_ids=world.passage_ids,
            document_ids=world.document_ids,
            scope=scope,
            with_scores=False,
        )
    return found


async def exists(graph: Graph, label: str, ids: list[str]) -> list[bool]:
    rows = await graph.read(
        "UNWIND $ids AS id OPTIONAL MATCH (n {id: id}) WHERE $label IN labels(n)"
        " RETURN n IS NOT NULL AS found",
        {"ids": ids, "label": label},
    )
    return [row["found"] for row in rows]


async def relation_types(graph: Graph) -> list[str]:
    rows = await graph.read(
        "MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS type ORDER BY type", {}
    )
    return [row["type"] for row in rows]


async def test_purge_changes_no_answer(graph: Graph, builder: GraphBuilder, client: Client) -> None:
    world = await build_world(graph, builder)
    client.embedder.script(QUERY, unit_vector(TEST_DIMENSION, 2))
    before = await everything(client, world)
    entities = str(before["None"]["lexical entities"])
    assert "'status': 'UNSUPPORTED'" in entities
    assert world.names["Zed"] in entities and world.names["Kim"] in entities

    report = await purge(graph, NOW)
    assert report.superseded_passages > 0 and report.documents_removed == 1
    assert await everything(client, world) == before


async def test_purge_removes_superseded_passages_failed_leftovers_and_deleted_documents(
    graph: Graph, builder: GraphBuilder
) -> None:
    world = await build_world(graph, builder)
    report = await purge(graph, NOW)

    # P's first passage is superseded and every entity it names has a current mention; its
    # second is Zed's last mention in P (Zed stays UNSUPPORTED), so it stays.
    assert await exists(graph, "Chunk", world.p1.passage_ids) == [False, True]
    assert await exists(graph, "Chunk", world.f2.passage_ids) == [False]  # a FAILED job's
    # K's first passage is Kim's last published word in K: the FAILED version's passage that
    # also mentions Kim (removed) never stood in for it.
    k1, k2, k3 = world.k
    assert await exists(graph, "Chunk", k2.passage_ids) == [True]  # current
    assert await exists(graph, "Chunk", [*k1.passage_ids, *k3.passage_ids]) == [True, False]
    assert await exists(graph, "Chunk", world.r.passage_ids) == [False, False]  # deleted
    assert await exists(graph, "Document", [world.r.document_id]) == [False]
    assert await exists(graph, "Entity", [world.names["Rita"], world.names["Solo"]]) == [
        False,
        False,
    ]
    kept = [world.names[n] for n in ("Ada", "Grace", "Zed", "Bo", "Linus", "Kim")]
    assert await exists(graph, "Entity", kept) == [True] * 6
    staged = await graph.read("MATCH (s:StagedEntity) RETURN count(s) AS n", {})
    assert staged[0]["n"] == 0
    # Both KNOWS named only passages now gone (P's first, R's): removed, not turned into
    # paths.
    assert await relation_types(graph) == ["LINKED", "MET", "TAUGHT"]
    jobs_left = await graph.read(
        "MATCH (j:Job) RETURN j.documentId AS d, j.version AS v, j.status AS s ORDER BY d, v", {}
    )
    assert {(row["d"], row["v"], row["s"]) for row in jobs_left} == {
        (world.p1.document_id, 1, "COMMITTED"),  # its passage is kept
        (world.p1.document_id, 2, "COMMITTED"),  # current
        (world.f1.document_id, 1, "COMMITTED"),  # current
        (world.f1.document_id, 2, "FAILED"),  # above the current version
        (world.g.document_id, 1, "COMMITTED"),
        (k1.document_id, 1, "COMMITTED"),  # its passage is kept
        (k1.document_id, 2, "COMMITTED"),  # current
        (k1.document_id, 3, "FAILED"),  # above the current version
    }
    assert (
        report.superseded_passages,
        report.failed_passages,
        report.documents_removed,
        report.entities_removed,
        report.relations_removed,
        report.staged_entities,
    ) == (3, 2, 1, 2, 2, 3)

    again = await purge(graph, NOW)
    assert again.lines() == type(again)().lines()  # nothing left to remove


async def test_purge_leaves_what_was_settled_for_less_than_the_duration(
    graph: Graph, builder: GraphBuilder
) -> None:
    world = await build_world(graph, builder)
    report = await purge(graph, timedelta(hours=1))
    assert (report.superseded_passages, report.failed_passages, report.documents_removed) == (
        0,
        0,
        0,
    )
    assert report.jobs_removed == 0
    assert await exists(graph, "Chunk", world.passage_ids) == [True] * len(world.passage_ids)
    assert await exists(graph, "Document", [world.r.document_id]) == [True]


async def test_purge_never_touches_what_a_job_under_way_needs(
    graph: Graph, builder: GraphBuilder
) -> None:
    world = await build_world(graph, builder)
    # A running load of G that mentions P's superseded first passage (otherwise removable).
    running = await builder.version(
        "globex",
        ["Linus, analyst, later."],
        document_id=world.g.document_id,
        mentions=analysts({"Linus": [0]}),
        external_mentions={"Zed Analyst": [world.p1.passage_ids[0]]},
        commit=False,
    )
    report = await purge(graph, NOW)
    assert await exists(graph, "Chunk", world.p1.passage_ids + running.passage_ids) == [
        True,
        True,
        True,
    ]
    assert report.entities_skipped_for_jobs == 1
    assert await exists(graph, "Entity", [world.names["Solo"]]) == [True]
    staged = await graph.read("MATCH (s:StagedEntity) RETURN count(s) AS n", {})
    assert staged[0]["n"] == 2
    await jobs.commit_job(graph, running.job)
    mention = await graph.read(
        "MATCH (:Entity {id: $zed})-[m:MENTIONED_IN]->(:Chunk {id: $p}) RETURN count(m) AS n",
        {"zed": world.names["Zed"], "p": world.p1.passage_ids[0]},
    )
    assert mention[0]["n"] == 1


async def transactions_begun(graph: Graph) -> int:
    """How many transactions the database has begun (the number in its own id)."""
    rows = await graph.read(
        "SHOW TRANSACTIONS YIELD transactionId, currentQuery"
        " WHERE currentQuery STARTS WITH 'SHOW TRANSACTIONS' RETURN transactionId",
        {},
    )
    return int(rows[0]["transactionId"].rsplit("-", 1)[1])


async def test_purge_of_a_big_backlog_runs_in_several_bounded_transactions(
    graph: Graph, builder: GraphBuilder
) -> None:
    documents = 12
    for n in range(documents):
        first = await builder.version("acme", [f"old {n}.{i}" for i in range(10)])
        await builder.version("acme", [f"new {n}"], document_id=first.document_id)
    before = await transactions_begun(graph)
    [row] = await graph.auto_commit_rows(
        purge_statements.REMOVE_PASSAGES,
        {"olderThanSeconds": 0, "batch": 10, "namedByStaging": []},
    )
    begun = await transactions_begun(graph) - before
    assert row["removed"] == documents * 10
    # Ten passages per transaction: twelve for the passages, besides the statement's own and
    # the count's.
    assert begun >= documents * 10 // 10 + 2, begun


async def test_purge_command_reports_what_it_removed(
    graph: Graph, builder: GraphBuilder, cli: Cli
) -> None:
    await build_world(graph, builder)
    run = await cli.run("purge", "--older-than", "0s")
    assert run.code == 0, run.err
    assert "passages: 3 superseded, 2 of failed jobs" in run.out
    assert "documents: 1 deleted documents" in run.out
    assert "purge: passages done" in run.err
    with pytest.raises(SystemExit) as usage:
        await cli.run("purge", "--older-than", "soon")
    assert usage.value.code == 2


async def load_and_delete_one_line(cli: Cli, tmp_path: Path) -> Path:
    """A bundle of one line, loaded and then deleted; the bundle's path."""
    line = bundle_line(1, [(1, "Ada, analyst.")], entities=[entity(1, "Ada", [1])])
    bundle = write_bundle(tmp_path / "one.jsonl", [line])
    assert (await cli.run("load", str(bundle))).code == 0
    assert (await cli.run("delete", "--document", uid("d", 1))).code == 0
    return bundle


async def test_a_deleted_bundle_line_loads_as_a_new_document_once_purge_made_the_deletion_final(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    bundle = await load_and_delete_one_line(cli, tmp_path)

    run = await cli.run("purge", "--older-than", "0s")
    assert run.code == 0, run.err
    assert "1 deletions made final" in run.out and "documents: 1 deleted documents" in run.out
    run = await cli.run("load", str(bundle))
    assert run.code == 0, run.err
    assert "documents: 1 loaded, 0 unchanged" in run.out
    [passage] = await lookups.passages_by_id(graph, Scope(("acme",)), [uid("p", 1)])
    assert passage is not None and passage.version == 1  # a new document: purge removed it


async def test_purge_leaves_a_deletion_a_reload_can_undo_until_it_has_settled(
    graph: Graph, cli: Cli, tmp_path: Path
) -> None:
    bundle = await load_and_delete_one_line(cli, tmp_path)

    report = await purge(graph, timedelta(hours=1))
    assert (report.deletions_finalised, report.superseded_passages) == (0, 0)
    run = await cli.run("load", str(bundle))
    assert "documents: 0 loaded, 1 restored" in run.out, run.err
    [passage] = await lookups.passages_by_id(graph, Scope(("acme",)), [uid("p", 1)])
    assert passage is not None and passage.version == 1
