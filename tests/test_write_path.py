"""The write path (contract §2): a document version is a job, all or nothing for every reader."""

from __future__ import annotations

import asyncio
import os
import textwrap
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from contract.scope import Scope
from graph import jobs, lookups
from graph.driver import Graph
from graph.graph_schema import apply_constraints
from tests.support.graph_builder import GraphBuilder, new_id
from tests.support.job_stress import read_lookups, run_stress
from tests.support.killed_writer import job_id_of_killed_writer

SCOPE = Scope(("acme",))


async def visible(graph: Graph, passage_ids: list[str]) -> set[str]:
    records = await lookups.passages_by_id(graph, SCOPE, passage_ids)
    return {record.id for record in records if record is not None}


# `JOB_STRESS_ROUNDS=50` runs the stress test 50 times in one session (the loop in the
# closing note of issue 13; with `--timeout=0`, as 50 rounds outlast the suite's 600 s per
# test); the suite runs it once, at a fixed number of commits.
STRESS_ROUNDS = int(os.environ.get("JOB_STRESS_ROUNDS", "1"))
# Each commit also re-describes this many stored entities: its application to the store takes
# longer, so readers meet it half-applied far more often. On the code that linked mentions in
# the transaction that moved the version, 6 of 16 rounds found an anomaly with it, about 1 in
# 50 without (docs/graph-model.md, "Readers").
REDESCRIBED = 2000


async def test_a_job_is_all_or_nothing_for_every_reader_at_every_instant(
    graph: Graph, reset_graph: Callable[[], None]
) -> None:
    """Readers of every kind that applies the visibility rule, concurrent with writers
    committing a fixed number of versions: no answer shows neither version, a mix of two, or
    a version older than the one committed before it began (tests/support/job_stress.py)."""
    anomalous: dict[int, list[str]] = {}
    for round_number in range(1, STRESS_ROUNDS + 1):
        if round_number > 1:
            reset_graph()
        world = await run_stress(graph, documents=2, commits=4, copies=2, redescribed=REDESCRIBED)
        assert set(world.reads) >= {
            "lookup",
            "evidence of Ada",
            "evidence of Bo",
            "entity search",
            "passage search LEXICAL",
            "passage search SEMANTIC",
            "walk",
        }, world.reads
        # After the last commit every reader sees the last version.
        last = world.now()
        assert all(n == 5 for n in last.values())
        await read_lookups(world, last)
        if world.anomalies:
            anomalous[round_number] = world.anomalies
    # Every round runs, so a loop of many reports how many of them were anomalous.
    report = [f"round {n}: {a}" for n, anomalies in anomalous.items() for a in anomalies[:10]]
    assert not anomalous, (f"{len(anomalous)} of {STRESS_ROUNDS} rounds anomalous", report)


async def test_a_commit_stopped_between_its_steps_leaves_the_old_version_and_recover_ends_it(
    graph: Graph, builder: GraphBuilder
) -> None:
    first = await builder.version("acme", ["old"])
    second = await builder.version("acme", ["new"], document_id=first.document_id, commit=False)
    # The first step alone, as if the loader died before the second.
    await jobs.commit_first_step(graph, second.job)
    assert await visible(graph, [*first.passage_ids, *second.passage_ids]) == set(first.passage_ids)
    assert await jobs.publish_committed_jobs(graph) == [second.job.id]
    assert await visible(graph, [*first.passage_ids, *second.passage_ids]) == set(
        second.passage_ids
    )
    assert await jobs.publish_committed_jobs(graph) == []


async def test_a_committed_job_is_never_failed_or_cleaned(
    graph: Graph, builder: GraphBuilder
) -> None:
    version = await builder.version("acme", ["kept"])
    await jobs.fail_job(graph, version.job.id)
    assert await visible(graph, version.passage_ids) == set(version.passage_ids)


KILLED_WRITER = textwrap.dedent(
    """
    import asyncio, sys, neo4j
    from graph.driver import Graph
    from graph import jobs

    async def main():
        uri, document_id, passage_id = sys.argv[1:4]
        async with neo4j.AsyncGraphDatabase.driver(uri, auth=None) as driver:
            graph = Graph(driver)
            job = await jobs.begin_job(graph, document_id, "acme")
            passage = {"id": passage_id, "position": 0, "text": "half"}
            await jobs.write_passages(graph, job, [passage])
            print(job.id, flush=True)
            await asyncio.sleep(3600)  # killed here, before the commit

    asyncio.run(main())
    """
)


async def test_a_job_killed_mid_write_leaves_the_previous_version_visible_and_recover_cleans_it(
    graph: Graph, builder: GraphBuilder, neo4j_uri: str
) -> None:
    first = await builder.version("acme", ["the committed version"], mentions={"Ada": [0]})
    orphan = new_id()
    job_id = job_id_of_killed_writer(KILLED_WRITER, neo4j_uri, first.document_id, orphan)

    assert await visible(graph, [*first.passage_ids, orphan]) == set(first.passage_ids)
    status = await graph.read("MATCH (j:Job {id: $id}) RETURN j.status AS status", {"id": job_id})
    assert status[0]["status"] == "RUNNING"

    # A job younger than the threshold is left alone; an older one is failed and removed.
    assert await jobs.recover_stale_jobs(graph, timedelta(hours=1)) == []
    assert await jobs.recover_stale_jobs(graph, timedelta(seconds=0)) == [job_id]
    status = await graph.read("MATCH (j:Job {id: $id}) RETURN j.status AS status", {"id": job_id})
    assert status[0]["status"] == "FAILED"
    left = await graph.read("MATCH (c:Chunk {id: $id}) RETURN count(c) AS n", {"id": orphan})
    assert left[0]["n"] == 0
    assert await visible(graph, first.passage_ids) == set(first.passage_ids)


async def test_recover_removes_entities_and_relations_only_the_failed_job_created(
    graph: Graph, builder: GraphBuilder
) -> None:
    kept = await builder.version("acme", ["Ada met Grace."], mentions={"Ada": [0], "Grace": [0]})
    stale = await builder.version(
        "acme",
        ["Ada met Linus."],
        mentions={"Ada": [0], "Linus": [0]},
        relations=[("Ada", "MET", "Linus", [0])],
        commit=False,
    )
    assert await jobs.recover_stale_jobs(graph, timedelta(seconds=0)) == [stale.job.id]
    names = await graph.read("MATCH (e:Entity) RETURN e.name AS name ORDER BY name", {})
    assert [row["name"] for row in names] == ["Ada", "Grace"]
    relations = await graph.read("MATCH ()-[r:MET]->() RETURN count(r) AS n", {})
    assert relations[0]["n"] == 0
    assert await visible(graph, kept.passage_ids) == set(kept.passage_ids)


async def test_two_jobs_writing_one_document_at_once_never_share_a_version(
    graph: Graph, builder: GraphBuilder
) -> None:
    first = await builder.version("acme", ["v1"])
    started = await asyncio.gather(
        *(jobs.begin_job(graph, first.document_id, "acme") for _ in range(20))
    )
    assert sorted(job.version for job in started) == list(range(2, 22))


async def test_loading_a_document_again_makes_the_old_passages_superseded(
    graph: Graph, builder: GraphBuilder
) -> None:
    first = await builder.version("acme", ["old"])
    second = await builder.version("acme", ["new"], document_id=first.document_id)
    assert second.job.version == first.job.version + 1
    assert await visible(graph, [*first.passage_ids, *second.passage_ids]) == set(
        second.passage_ids
    )


async def test_a_document_id_cannot_move_to_another_workspace(
    graph: Graph, builder: GraphBuilder
) -> None:
    first = await builder.version("acme", ["text"])
    try:
        await jobs.begin_job(graph, first.document_id, "globex")
    except jobs.WorkspaceMismatch as error:
        assert "acme" in str(error)
    else:
        raise AssertionError("a document must not change workspace")
    assert await visible(graph, first.passage_ids) == set(first.passage_ids)


async def profiled_db_hits(graph: Graph, statement: str, parameters: dict[str, object]) -> int:
    """Database hits of `statement` (which manages its own transactions), by PROFILE."""
    async with graph.driver.session(database=graph.database) as session:
        result = await session.run("PROFILE " + statement, parameters)
        summary = await result.consume()

    def hits(plan: dict[str, Any]) -> int:
        return int(plan.get("dbHits", 0)) + sum(hits(c) for c in plan.get("children", []))

    assert summary.profile is not None
    return hits(summary.profile)


async def test_recover_finds_a_jobs_writes_without_reading_the_stores_relationships(
    graph: Graph, builder: GraphBuilder
) -> None:
    """`jobs recover` removes a job's chunks and staging by its id, through indexes: its
    work does not grow with the relationships the store holds."""
    await apply_constraints(graph)
    kept = await builder.version("acme", ["Ada met Grace."], mentions={"Ada": [0], "Grace": [0]})

    async def recovery_hits() -> int:
        stale = await builder.version(
            "acme",
            ["Ada met Linus.", "Linus alone."],
            mentions={"Ada": [0], "Linus": [0, 1]},
            relations=[("Ada", "MET", "Linus", [0]), ("Linus", "MET", "Grace", [1])],
            commit=False,
        )
        await graph.write(jobs.FAIL_JOB, {"jobId": stale.job.id})
        return sum(
            [
                await profiled_db_hits(graph, statement, {"jobId": stale.job.id})
                for statement in jobs.REMOVE_JOB_WRITES
            ]
        )

    small = await recovery_hits()
    await graph.write(
        "MATCH (a:Entity {id: $ada}), (g:Entity {id: $grace})"
        " UNWIND range(1, 5000) AS i CREATE (a)-[:KNOWS {id: toString(i)}]->(g)",
        {"ada": builder.entity_id("Ada"), "grace": builder.entity_id("Grace")},
    )
    assert await recovery_hits() == small
    assert await visible(graph, kept.passage_ids) == set(kept.passage_ids)
