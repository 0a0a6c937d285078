"""Two loads of two workspaces racing for one new entity id (contract §10: "A line that loses a
race for a new id to another workspace's concurrent load is refused with its reason (or
retried), never reported loaded with parts missing").

The loader checks a line's ownership (ingest/reference_check.py) before its job writes, from one
read. An entity id that was new then may be created by another workspace's load before this
job commits. The commit's statements hold to ownership by themselves (graph/jobs.py): they
leave the other workspace's entity as it is, so the line would commit with that entity, its
mentions and the relations at it missing. So once a job has staged all it writes, and before
the first step of its commit (until then the job can still be failed, which removes all of
it), `taken_meanwhile` asks two statements, in this order:

    1. which of the entity ids the job staged are staged by a job of another workspace that
       has not failed (RUNNING, or COMMITTED and not yet published)?
    2. which of them are stored with an owner other than the job's workspace (or with none)?

If any, the job is failed and the line refused (`NewIdTaken`, ingest/loader.py). This is
enough whatever the interleaving, because each job stages before it asks. Of two jobs of two
workspaces staging one id, the one whose statement 1 starts second starts it after the other's
staging was committed, so it finds that staging, or, when the other job has already created
the entity (the same transaction deletes its staging of it), finds the entity in statement 2,
which runs after statement 1 and so sees that commit. One statement reading both could read
the entity's absence before that commit and the staging's absence after it (contract §2: read
committed), hence two. So at most one of the two goes on to commit; when both ask before
either has failed, both are refused, and each reason says to load the line again once the
other load has finished.

Other ids need no such step: a line's relations end at its own entities or at stored ones
(checked as its workspace's), a passage id is unique by constraint (the second write is
refused by Neo4j, and the line with it), and a document id taken meanwhile by another
workspace is refused when the job begins (`jobs.WorkspaceMismatch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from graph.driver import Graph
from graph.jobs import Job
from graph.ownership import OWNER

# Ids named in a refusal; the rest are counted.
IDS_REPORTED = 5

# Found through the index `staged_entity_id` (graph/graph_schema.py).
STAGED_BY_ANOTHER_WORKSPACE: LiteralString = """
MATCH (mine:StagedEntity {jobId: $jobId})
MATCH (other:StagedEntity {id: mine.id}) WHERE other.jobId <> $jobId
MATCH (writer:Job {id: other.jobId}) WHERE writer.status <> 'FAILED'
MATCH (home:Document {id: writer.documentId})
WHERE NOT coalesce(home.workspace = $workspace, false)
WITH DISTINCT mine.id AS id, writer.id AS writerId ORDER BY id
RETURN collect({id: id, jobId: writerId})[..$reported] AS taken, count(id) AS total
"""

STORED_WITH_ANOTHER_OWNER: LiteralString = (
    """
MATCH (mine:StagedEntity {jobId: $jobId})
MATCH (e:Entity {id: mine.id}) WHERE NOT coalesce(e.`"""
    + OWNER
    + """` = $workspace, false)
WITH DISTINCT mine.id AS id ORDER BY id
RETURN collect({id: id, jobId: null})[..$reported] AS taken, count(id) AS total
"""
)


@dataclass(frozen=True, slots=True)
class TakenId:
    entity_id: str
    job_id: str | None  # the other workspace's job under way; None: stored already


class NewIdTaken(Exception):
    """Entity ids of the job that another workspace's load took after the line was checked:
    the first IDS_REPORTED of them, and how many there are."""

    def __init__(self, taken: tuple[TakenId, ...], total: int) -> None:
        super().__init__(f"{total} entity ids taken by another workspace's load meanwhile")
        self.taken = taken
        self.total = total


async def taken_meanwhile(graph: Graph, job: Job) -> None:
    """Raise `NewIdTaken` when another workspace's load has staged or stored an entity id
    the job staged; call it after the job's last write and before its commit."""
    parameters = {"jobId": job.id, "workspace": job.workspace, "reported": IDS_REPORTED}
    for statement in (STAGED_BY_ANOTHER_WORKSPACE, STORED_WITH_ANOTHER_OWNER):  # in this order
        # Sent as writes, so a cluster runs them on its leader: a follower may not have the
        # other load's last commit yet.
        [row] = await graph.write(statement, parameters)
        if row["total"]:
            taken = tuple(TakenId(item["id"], item["jobId"]) for item in row["taken"])
            raise NewIdTaken(taken, int(row["total"]))
