"""The write path (contract §2): a document version is a job, committed in one transaction."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from datetime import timedelta

from contract.scope import Scope
from graph import jobs, lookups
from graph.driver import Graph
from tests.support.graph_builder import GraphBuilder, new_id

SCOPE = Scope(("acme",))


async def visible(graph: Graph, passage_ids: list[str]) -> set[str]:
    records = await lookups.passages_by_id(graph, SCOPE, passage_ids)
    return {record.id for record in records if record is not None}


async def test_a_reader_running_concurrently_with_a_job_never_sees_part_of_a_version(
    graph: Graph, builder: GraphBuilder
) -> None:
    first = await builder.version("acme", [f"v1 passage {i}" for i in range(50)])
    versions = [set(first.passage_ids)]
    every_id = list(first.passage_ids)
    observed: list[set[str]] = []
    writing = True

    async def reader() -> None:
        while writing:
            observed.append(await visible(graph, every_id))

    async def writer() -> None:
        nonlocal writing
        for number in range(2, 12):
            job = await jobs.begin_job(graph, first.document_id, "acme")
            ids = [new_id() for _ in range(50)]
            every_id.extend(ids)
            for start in range(0, 50, 10):  # several batches, so a partial state exists
                await jobs.write_passages(
                    graph,
                    job,
                    [
                        {"id": pid, "position": start + i, "text": f"v{number} passage"}
                        for i, pid in enumerate(ids[start : start + 10])
                    ],
                )
                await asyncio.sleep(0.01)
            await jobs.commit_job(graph, job)
            versions.append(set(ids))
        writing = False

    await asyncio.gather(reader(), reader(), reader(), writer())
    assert len(observed) > 40, "the reader should have run many times during the jobs"
    for seen in observed:
        assert any(seen == whole for whole in versions), (
            f"saw part of a version: {len(seen)} passages"
        )
    assert await visible(graph, every_id) == versions[-1]


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
    process = subprocess.Popen(  # noqa: ASYNC220  # it only starts; the test waits on its output
        [sys.executable, "-c", KILLED_WRITER, neo4j_uri, first.document_id, orphan],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
    )
    assert process.stdout is not None
    job_id = process.stdout.readline().strip()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()

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
