"""Deleting a document is a job that retires it (contract §2, §11: `evidencegraph delete`).

A retirement is a document version with no passages:

    1. begin   under the document's write lock (as `jobs.BEGIN_JOB` takes it), a Job{RUNNING,
               retires: true} with the document's next version, which is added to the
               document's `retiredVersions`
    2. commit  the job COMMITTED, then, in a second transaction, `currentVersion` moved to it:
               the same two ordered steps as `jobs.commit_job` (docs/graph-model.md,
               "Readers"), here for a batch of jobs per transaction

From the second step on, nothing of the document is current (the version has no passages) and
the document is *retired* (`visibility.document_retired`: its current version is listed in
`retiredVersions`), so its passages make no entity returnable. Until then it is visible as
before. A crash leaves RUNNING jobs that `jobs recover` fails (there is nothing to remove) or
COMMITTED ones it publishes, exactly as for a load. A later load of the document takes a
higher version and brings it back; a load that began before the retirement and commits after
it cannot (a commit never moves the version backwards): the last job to begin wins. Loading
the very line the document was deleted as restores the version the retirement took away,
which its commit records (graph/restoration.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import LiteralString

from graph.driver import Graph
from graph.jobs import Job
from graph.restoration import RECORD_RETIRED_VERSION
from graph.visibility import document_retired

# The documents named, each with its workspace and whether it is retired (null: no such node).
DOCUMENTS_NAMED: LiteralString = (
    "UNWIND $documentIds AS documentId"
    " OPTIONAL MATCH (d:Document {id: documentId})"
    " RETURN documentId, d.workspace AS workspace, " + document_retired("d") + " AS retired"
)

DOCUMENTS_OF_WORKSPACE: LiteralString = (
    "MATCH (d:Document) WHERE d.workspace = $workspace"
    " RETURN d.id AS documentId, d.workspace AS workspace, "
    + document_retired("d")
    + " AS retired ORDER BY d.id"
)

# `jobs.BEGIN_JOB`'s lock and version rule, for a batch of documents in id order (so two
# batches take their locks in one order). A document already retired is left alone, unless a
# job of a later version is still under way (a reload that would bring it back): then it is
# retired again, after that job, which its commit cannot undo. Held to `$workspace` when it is
# given (`delete --workspace W`): a document of any other workspace is not touched, even one
# another pipeline moved there since the command checked it.
BEGIN_RETIREMENTS: LiteralString = (
    "UNWIND $documents AS row"
    " MATCH (d:Document {id: row.documentId})"
    " WHERE $workspace IS NULL OR d.workspace = $workspace"
    " SET d.allocatingVersion = true"
    " WITH d, row"
    " OPTIONAL MATCH (earlier:Job {documentId: d.id})"
    " WITH d, row, max(earlier.version) AS lastJobVersion,"
    "  size([j IN collect(earlier) WHERE j.version > d.currentVersion"
    "   AND (j.status = 'RUNNING' OR j.unpublished)]) AS pending"
    " WITH d, row, " + document_retired("d") + " AND pending = 0 AS alreadyRetired,"
    "  CASE WHEN lastJobVersion > d.currentVersion THEN lastJobVersion"
    "   ELSE d.currentVersion END + 1 AS version"
    " CALL (d, row, version, alreadyRetired) {"
    "  WITH * WHERE NOT alreadyRetired"
    "  CREATE (:Job {id: row.jobId, status: 'RUNNING', documentId: d.id, version: version,"
    "   startedAt: datetime(), retires: true})"
    "  SET d.retiredVersions = coalesce(d.retiredVersions, []) + version"
    " }"
    " REMOVE d.allocatingVersion"
    " RETURN d.id AS documentId, d.workspace AS workspace, row.jobId AS jobId,"
    "  CASE WHEN alreadyRetired THEN null ELSE version END AS version"
)

# `jobs.MARK_COMMITTED` for a batch: the first step (a retirement links nothing).
COMMIT_RETIREMENTS: LiteralString = (
    "UNWIND $jobIds AS jobId"
    " MATCH (j:Job {id: jobId}) WHERE j.status = 'RUNNING' AND j.retires"
    " SET j.status = 'COMMITTED', j.finishedAt = datetime(), j.unpublished = true"
    " RETURN j.id AS id"
)

# `jobs.PUBLISH_VERSION` for a batch of retirements (they staged nothing): the second step.
# Idempotent, and never moves a version backwards. Records the version each retirement takes
# away (so loading that line again restores it, graph/restoration.py). Counts the passages
# that were current.
PUBLISH_RETIREMENTS: LiteralString = (
    "UNWIND $jobIds AS jobId"
    " MATCH (j:Job {id: jobId}) WHERE j.status = 'COMMITTED' AND j.retires"
    " MATCH (d:Document {id: j.documentId}) "
    + RECORD_RETIRED_VERSION
    + " WITH j, d, d.currentVersion AS before"
    " SET d.currentVersion = CASE WHEN j.version > before THEN j.version ELSE before END"
    " REMOVE j.unpublished"
    " RETURN d.id AS documentId, d.currentVersion = j.version AS retired,"
    "  CASE WHEN before < j.version"
    "   THEN COUNT { (d)-[:HAS_PART]->(c:Chunk) WHERE c.version = before } ELSE 0 END AS hidden"
)


@dataclass(frozen=True, slots=True)
class DocumentState:
    id: str
    workspace: str | None  # None: no such document
    retired: bool

    @property
    def found(self) -> bool:
        return self.workspace is not None


@dataclass(frozen=True, slots=True)
class Published:
    retired: int  # documents whose current version is now their retirement
    superseded: int  # a later job had already moved the version past the retirement
    passages_hidden: int  # passages that were current and are not any more


async def documents_named(graph: Graph, document_ids: Sequence[str]) -> list[DocumentState]:
    rows = await graph.read(DOCUMENTS_NAMED, {"documentIds": list(dict.fromkeys(document_ids))})
    return [
        DocumentState(row["documentId"], row["workspace"], bool(row["retired"])) for row in rows
    ]


async def documents_of_workspace(graph: Graph, workspace: str) -> list[DocumentState]:
    rows = await graph.read(DOCUMENTS_OF_WORKSPACE, {"workspace": workspace})
    return [
        DocumentState(row["documentId"], row["workspace"], bool(row["retired"])) for row in rows
    ]


async def begin_retirements(
    graph: Graph, document_ids: Sequence[str], workspace: str | None = None
) -> tuple[list[Job], list[str]]:
    """Begin one retirement job per document: the jobs, and the documents left alone because
    they are retired already. A document that does not exist (purged meanwhile), or that is
    not of `workspace` when one is given, is in neither."""
    documents = [
        {"documentId": document_id, "jobId": str(uuid.uuid4())}
        for document_id in sorted(set(document_ids))
    ]
    rows = await graph.write(BEGIN_RETIREMENTS, {"documents": documents, "workspace": workspace})
    begun = [
        Job(row["jobId"], row["documentId"], int(row["version"]), row["workspace"])
        for row in rows
        if row["version"] is not None
    ]
    already = [row["documentId"] for row in rows if row["version"] is None]
    return begun, already


async def commit_retirements(graph: Graph, jobs: Sequence[Job]) -> Published:
    """Commit retirement jobs: their status, then their documents' versions, each step one
    transaction for the whole batch, in that order (as `jobs.commit_job`)."""
    job_ids = [job.id for job in jobs]
    rows = await graph.write(COMMIT_RETIREMENTS, {"jobIds": job_ids})
    committed = [row["id"] for row in rows]
    rows = await graph.write(PUBLISH_RETIREMENTS, {"jobIds": committed})
    if len(committed) != len(job_ids):
        lost = sorted(set(job_ids) - set(committed))
        raise RuntimeError(f"retirement jobs {lost} are no longer RUNNING: recovered meanwhile")
    retired = sum(1 for row in rows if row["retired"])
    return Published(
        retired=retired,
        superseded=len(rows) - retired,
        passages_hidden=sum(int(row["hidden"]) for row in rows),
    )
