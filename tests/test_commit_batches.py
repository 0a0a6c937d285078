"""Issue 25 §3: "Applying a job's staged writes is bounded (in batches), so a large line
cannot time out on every try and leave a job half published."

The version hides everything the commit's first step links (graph/jobs.py), so that step
runs in transactions of `LINK_BATCH` staged entities or relations, and deletes the staging
of what it created whole; the second step, one transaction with the version, keeps only
what changes stored things. The server's per-transaction memory limit stands in for any
bound a transaction can meet (memory, time): a line far larger than one transaction may be
commits under it, whole. It is set on a server of this module's own (Neo4j Community
sets it only at start), which the first test shares with the second.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import neo4j
import pytest

from graph import jobs
from graph.driver import Graph
from graph.graph_schema import apply_constraints
from localneo4j.server import LocalServer, free_port, start, stop
from tests.support.graph_builder import new_id, unit_vector

# A line of this many new entities, each mentioned by its own passage and related to the
# next: several batches of the first step.
ENTITIES = 5 * jobs.LINK_BATCH
DIMENSION = 384
# Well above what one batch needs, well below what the whole line needs in one transaction
# (measured: the line's commit as one transaction needs about 40 MiB; a batch about 4).
TRANSACTION_MEMORY = "16m"


@pytest.fixture(scope="module")
def bounded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    home = Path(tmp_path_factory.mktemp("bounded-neo4j"))
    server = start(
        home, port=free_port(), settings={"db.memory.transaction.max": TRANSACTION_MEMORY}
    )
    try:
        yield server
    finally:
        stop(server.home)


@pytest.fixture
async def bounded(bounded_server: LocalServer) -> AsyncIterator[Graph]:
    """A graph on the bounded server, emptied (in transactions small enough for its limit), with
    the constraints and indexes jobs use."""
    async with neo4j.AsyncGraphDatabase.driver(
        bounded_server.bolt_uri, auth=None, notifications_min_severity="OFF"
    ) as driver:
        graph = Graph(driver)
        await graph.auto_commit(
            "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 100 ROWS", {}
        )
        await apply_constraints(graph)
        yield graph


async def large_line(graph: Graph, entities_count: int = ENTITIES) -> jobs.Job:
    """A RUNNING job staging `entities_count` new entities (by default far more than one
    transaction may hold), each mentioned by its own passage and related to the next."""
    job = await jobs.begin_job(graph, new_id(), "acme")
    passages = [
        {"id": new_id(), "position": n, "text": f"passage {n}"} for n in range(entities_count)
    ]
    entities = [
        {
            "id": new_id(),
            "labels": ["Person"],
            "name": f"Person {n}",
            "description": "x" * 200,
            "embedding": unit_vector(DIMENSION, n),
            "mentions": [passages[n]["id"]],
        }
        for n in range(entities_count)
    ]
    relations = [
        {
            "id": new_id(),
            "type": "KNOWS",
            "source": entities[n]["id"],
            "target": entities[n + 1]["id"],
            "passageIds": [passages[n]["id"]],
        }
        for n in range(entities_count - 1)
    ]
    for first in range(0, entities_count, 250):  # the loader's staging is batched too
        await jobs.write_passages(graph, job, passages[first : first + 250])
        await jobs.write_entities(graph, job, entities[first : first + 250])
        await jobs.write_relations(graph, job, relations[first : first + 250])
    return job


async def test_a_line_larger_than_one_transaction_commits_in_bounded_transactions(
    bounded: Graph,
) -> None:
    graph = bounded
    job = await large_line(graph)
    assert await jobs.commit_job(graph, job) == job.version
    [row] = await graph.read(
        "MATCH (d:Document {id: $id})-[:HAS_PART]->(c:Chunk)"
        " OPTIONAL MATCH (e:Entity)-[:MENTIONED_IN]->(c)"
        " RETURN d.currentVersion AS version, count(DISTINCT c) AS passages,"
        " count(DISTINCT e) AS entities,"
        " COUNT { MATCH ()-[:KNOWS]->() } AS relations,"
        " COUNT { MATCH (s) WHERE s:StagedEntity OR s:StagedRelation } AS staged",
        {"id": job.document_id},
    )
    assert dict(row) == {
        "version": job.version,
        "passages": ENTITIES,
        "entities": ENTITIES,
        "relations": ENTITIES - 1,
        "staged": 0,
    }


async def test_the_first_step_leaves_the_second_only_what_changes_stored_things(
    bounded: Graph,
) -> None:
    """A new entity or relation whose mentions or passages are all the job's own is created
    whole by the first step: its staging is gone before the version's transaction. Two
    batches show it, the second partial."""
    graph = bounded
    job = await large_line(graph, jobs.LINK_BATCH + 1)
    await jobs.commit_first_step(graph, job)
    [row] = await graph.read(
        "RETURN COUNT { MATCH (s) WHERE s:StagedEntity OR s:StagedRelation } AS staged,"
        " COUNT { MATCH ()-[r:KNOWS]->() WHERE r.stagedJobId IS NOT NULL } AS marked,"
        " COUNT { MATCH (e:Entity) WHERE e.createdByLink IS NOT NULL } AS markedEntities",
        {},
    )
    assert dict(row) == {"staged": 0, "marked": 0, "markedEntities": 0}
    assert await jobs.publish_committed_jobs(graph) == [job.id]
