"""The write path (contract §2): writing one document version is a job.

    1. begin   create Job{RUNNING} with version = the document's next version
    2. write   chunks carrying `jobId` and that version; entities, mentions and relations
               staged on the job's own nodes
    3. commit  Job.status = 'COMMITTED', then everything the new version's passages need
               (new entities, mentions of the job's passages, their support of relations)
               in bounded transactions; then, in one more, the rest of the staging and
               Document.currentVersion

Until step 3 nothing the job wrote is current, and because every read reads a document's
version before the jobs of its passages (graph/visibility.py), readers see the old version
whole or the new one whole (docs/graph-model.md, "Readers"). What the first step of the
commit links is hidden by the version itself until the second moves it, so the second
adds nothing the new version's passages are found through. A crash leaves a RUNNING job
behind; `recover_stale_jobs` marks it FAILED and removes what it wrote: its chunks and its
staging, the only things it wrote. Entities and relations merge by id across the documents
of one workspace when a commit applies them.

Ownership (contract §2 "Ownership"): every entity and relation a job creates is its
workspace's (`workspace`, graph/ownership.py), and a commit changes, mentions and links only
its own workspace's entities, relations and passages. The loader refuses a line that names
anyone else's (ingest/reference_check.py); the statements below hold to it by themselves as
well: an entity or relation stored with another owner is left as it is, and a passage of
another workspace's document is never linked to an owned entity or relation, so no path to
them (a race with another load, a caller that skips the check) can change another
workspace's data. An entity or relation with no owner (another pipeline's, contract §2) is
no workspace's and may be mentioned from any workspace; keeping a load away from it is the
check's part.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, LiteralString

from graph.driver import Graph
from graph.mention_order import FORGET_MENTIONS_OF_CHUNK, ORDER_NEW_MENTIONS
from graph.name_key import name_key
from graph.ownership import workspace_key
from graph.restoration import RECORD_RETIRED_VERSION

# Setting a property takes the document's write lock before the versions are read, so two
# jobs of one document allocate one after the other: the second reads the first's Job
# (committed with the lock's release) and never takes its version. The property is removed in
# the same transaction, so no reader ever sees it.
BEGIN_JOB: LiteralString = """
MERGE (d:Document {id: $documentId})
  ON CREATE SET d.workspace = $workspace, d.currentVersion = 0, d.sourceId = $sourceId
SET d.allocatingVersion = true
WITH d
OPTIONAL MATCH (earlier:Job {documentId: d.id})
WITH d, max(earlier.version) AS lastJobVersion
WITH d, CASE WHEN lastJobVersion > d.currentVersion THEN lastJobVersion
             ELSE d.currentVersion END + 1 AS version
CREATE (j:Job {id: $jobId, status: 'RUNNING', documentId: d.id, version: version,
               startedAt: datetime(), title: $title, uri: $uri})
REMOVE d.allocatingVersion
RETURN d.workspace AS workspace, version
"""

# `workspaceKey` is the key of the document's workspace (graph/ownership.py), for the
# lexical index's candidates.
WRITE_PASSAGES: LiteralString = """
MATCH (d:Document {id: $documentId})
UNWIND $passages AS p
CREATE (c:Chunk {id: p.id, documentId: $documentId, version: $version, position: p.position,
                 text: p.text, jobId: $jobId, workspaceKey: $workspaceKey})
SET c.embedding = p.embedding, c.sourceId = p.sourceId
CREATE (d)-[:HAS_PART]->(c)
"""

# What a job writes besides its own passages (entities, their labels and mentions, relations)
# touches nodes other jobs and readers share, so it is staged on nodes of the job's own
# (:StagedEntity, :StagedRelation, keyed by the job's id) and applied by the commit's second
# transaction, with the version (docs/graph-model.md, "What a job writes to stored things").
WRITE_ENTITIES: LiteralString = """
UNWIND $entities AS row
CREATE (s:StagedEntity {jobId: $jobId, id: row.id, name: row.name, labels: row.labels,
                        mentions: row.mentions})
SET s.description = row.description, s.embedding = row.embedding, s.sourceId = row.sourceId
"""

# A staged relation carries the relation's own properties under their names, and what the
# commit needs under the STAGED_RELATION_KEYS, which a bundle may not use (ingest/bundle_checks).
STAGED_RELATION_KEYS: tuple[str, ...] = (
    "stagedJobId",
    "stagedId",
    "stagedType",
    "stagedSource",
    "stagedTarget",
    "stagedPassageIds",
)

WRITE_RELATIONS: LiteralString = """
UNWIND $relations AS row
CREATE (s:StagedRelation)
SET s = row.properties
SET s.stagedJobId = $jobId, s.stagedId = row.id, s.stagedType = row.type,
    s.stagedSource = row.source, s.stagedTarget = row.target, s.stagedPassageIds = row.passageIds
"""

# The commit is two steps, in this order (docs/graph-model.md, "Readers"): first the job's
# status, then the document's version. `unpublished` marks a job between the two, so
# `jobs recover` can finish a commit that stopped after the first.
#
# The first step also links what the new version is found through: it creates the job's new
# entities (whole: labels, name, description, embedding, so their index entries exist too),
# their and stored entities' mentions of the job's own passages, and adds those passages to
# the support of the job's relations (creating a relation that has one). Readers cannot see
# any of it before the version moves: a passage of a version its document has not reached
# counts for nothing (visibility.entity_returnable, passage_current), and a relation whose
# listed passages are none of them visible is dropped. It must happen here and not with the
# version: Neo4j applies a commit to the store record by record, property records before node
# records, and a node's record is what leads to its newest relationships, so a reader could
# read the new `currentVersion` while an entity's new mentions were not yet reachable from it
# and find neither version's passages.
# Because the version hides all of it, the linking need not be one transaction: after the
# status (MARK_COMMITTED), it runs in transactions of at most `LINK_BATCH` staged entities or
# relations each (LINK_STAGED_ENTITIES, LINK_STAGED_RELATIONS), so a line of any size commits
# in bounded transactions instead of one that can outgrow the server's transaction memory or
# time limit on every try. The job's staging is listed once (STAGED_KEYS) and each batch finds
# its rows by element id, so a batch costs its own size, not the job's. A staged entity or
# relation the step created whole (a new one, all of whose mentions or passages are the job's
# own) has nothing left for the second step, so its staging is deleted here: the second step,
# which must be one transaction with the version, then holds only what changes stored things.
# A stored relation with no passages (a path) is the exception: listing the job's passages on
# it here would make it an edge whose passages are none of them visible, which a walk drops
# (seed walk step 3), so a path would vanish until the version moves. Its support is added by
# the second step, with the version; a reader in between sees it as a path still.
MARK_COMMITTED: LiteralString = """
MATCH (j:Job {id: $jobId}) WHERE j.status = 'RUNNING'
SET j.status = 'COMMITTED', j.finishedAt = datetime(),
    j.contentHash = coalesce($contentHash, j.contentHash), j.unpublished = true
RETURN j.id AS id
"""

# Staged entities or relations linked per transaction of the first step: with 384-dimension
# embeddings, about 7 MiB of transaction memory (tests/test_commit_batches.py).
LINK_BATCH = 200

STAGED_KEYS: dict[str, LiteralString] = {
    "entities": "MATCH (s:StagedEntity {jobId: $jobId}) RETURN elementId(s) AS key",
    "relations": "MATCH (s:StagedRelation {stagedJobId: $jobId}) RETURN elementId(s) AS key",
}

# `createdByLink` is set only when the MERGE creates the entity, and removed in the same
# transaction: it tells this row's creation from a stored entity's (another job's, even one
# committed a moment ago), which keeps its staging for the second step.
LINK_STAGED_ENTITIES: LiteralString = (
    """
MATCH (j:Job {id: $jobId}) WHERE j.status = 'COMMITTED' AND j.unpublished
MATCH (d:Document {id: j.documentId})
UNWIND $keys AS key
MATCH (s:StagedEntity) WHERE elementId(s) = key AND s.jobId = j.id
MERGE (e:Entity {id: s.id})
  ON CREATE SET e.name = s.name, e.description = s.description, e.embedding = s.embedding,
                e.sourceId = s.sourceId, e.workspace = d.workspace,
                e.workspaceKey = $workspaceKey, e:$(s.labels), e.createdByLink = true,
                e:NameKeyed, e.nameKey = """
    + name_key("s.name")
    + """
WITH j, d, s, e, e.createdByLink IS NOT NULL AS created
REMOVE e.createdByLink
WITH j, d, s, e, created
CALL (e, s, d) {
  WITH * WHERE coalesce(e.workspace, d.workspace) = d.workspace
  UNWIND s.mentions AS passageId
  MATCH (c:Chunk {id: passageId}) WHERE c.jobId = s.jobId
  MERGE (e)-[m:MENTIONED_IN]->(c)
  """
    + ORDER_NEW_MENTIONS
    + """
}
CALL (s, created) {
  WITH * WHERE created
    AND all(p IN s.mentions WHERE EXISTS { MATCH (:Chunk {id: p, jobId: s.jobId}) })
  DELETE s
}
"""
)

LINK_STAGED_RELATIONS: LiteralString = """
MATCH (j:Job {id: $jobId}) WHERE j.status = 'COMMITTED' AND j.unpublished
MATCH (d:Document {id: j.documentId})
UNWIND $keys AS key
MATCH (s:StagedRelation) WHERE elementId(s) = key AND s.stagedJobId = j.id
CALL (j, d, s) {
  WITH j, d, s,
       [p IN s.stagedPassageIds WHERE EXISTS { MATCH (:Chunk {id: p, jobId: j.id}) }] AS own
  WHERE size(own) > 0
  MATCH (source:Entity {id: s.stagedSource}), (target:Entity {id: s.stagedTarget})
  WHERE coalesce(source.workspace, d.workspace) = d.workspace
    AND coalesce(target.workspace, d.workspace) = d.workspace
  MERGE (source)-[r:$(s.stagedType) {id: s.stagedId}]->(target)
    ON CREATE SET r.workspace = d.workspace, r.passageIds = own, r.createdByLink = true
  WITH d, s, r, own, r.createdByLink IS NOT NULL AS created
  REMOVE r.createdByLink
  WITH * WHERE coalesce(r.workspace, d.workspace) = d.workspace
  CALL (r, own, created) {
    WITH * WHERE NOT created AND size(coalesce(r.passageIds, [])) > 0
    SET r.passageIds = reduce(ids = r.passageIds, p IN own |
                              CASE WHEN p IN ids THEN ids ELSE ids + p END)
  }
  CALL (r, s, own, created) {
    WITH * WHERE created AND size(own) = size(s.stagedPassageIds)
    SET r += properties(s)
    REMOVE r.stagedJobId, r.stagedId, r.stagedType, r.stagedSource, r.stagedTarget,
           r.stagedPassageIds
    DELETE s
  }
}
"""

# The second step: the rest of the staging, then the version, in one transaction. What is
# left changes only stored things the version does not hide (the fields and labels of stored
# entities, mentions of other documents' passages, relations' other support, paths): it
# adds to relationship chains and never removes from them, so nothing the first step linked
# goes out of a reader's reach. Entities merge by id across documents (the last committed
# writer's name wins); a relation's `passageIds` are the union of what every job said.
# Idempotent, and complete on its own (a job committed by an older release, whose first
# step linked nothing, is published whole): the staging is deleted as it is applied, and the
# version never moves backwards. Both steps give each mention they link the properties that
# keep it in evidence order (graph/mention_order.py), and each entity whose name they write the
# key of that name (graph/name_key.py).
# A retirement finished here (by `jobs recover`) records the version it takes away, as
# `retirement.PUBLISH_RETIREMENTS` does, so its document can be restored (graph/restoration.py).
PUBLISH_VERSION: LiteralString = (
    """
MATCH (j:Job {id: $jobId}) WHERE j.status = 'COMMITTED'
MATCH (d:Document {id: j.documentId})
CALL (j, d) {
  MATCH (s:StagedEntity {jobId: j.id})
  MERGE (e:Entity {id: s.id})
    ON CREATE SET e.workspace = d.workspace, e.workspaceKey = $workspaceKey
  WITH e, s
  CALL (e, s, d) {
    WITH * WHERE coalesce(e.workspace, d.workspace) = d.workspace
    SET e.name = s.name, e:NameKeyed, e.nameKey = """
    + name_key("s.name")
    + """,
        e.description = coalesce(s.description, e.description),
        e.embedding = coalesce(s.embedding, e.embedding),
        e.sourceId = coalesce(s.sourceId, e.sourceId)
    SET e:$(s.labels)
    WITH e, s, d
    UNWIND s.mentions AS passageId
    MATCH (c:Chunk {id: passageId})
    WHERE e.workspace IS NULL
       OR EXISTS { MATCH (:Document {id: c.documentId, workspace: d.workspace}) }
    MERGE (e)-[m:MENTIONED_IN]->(c)
    """
    + ORDER_NEW_MENTIONS
    + """
  }
  DELETE s
}
CALL (j, d) {
  MATCH (s:StagedRelation {stagedJobId: j.id})
  CALL (s, d) {
    MATCH (source:Entity {id: s.stagedSource}), (target:Entity {id: s.stagedTarget})
    WHERE coalesce(source.workspace, d.workspace) = d.workspace
    AND coalesce(target.workspace, d.workspace) = d.workspace
    MERGE (source)-[r:$(s.stagedType) {id: s.stagedId}]->(target)
      ON CREATE SET r.workspace = d.workspace
    WITH r, s, d WHERE coalesce(r.workspace, d.workspace) = d.workspace
    WITH r, s, [p IN s.stagedPassageIds WHERE EXISTS {
                  MATCH (c:Chunk {id: p}), (home:Document {id: c.documentId})
                  WHERE home.workspace = d.workspace }] AS linkable
    SET r += properties(s)
    SET r.passageIds = reduce(ids = coalesce(r.passageIds, []), p IN linkable |
                              CASE WHEN p IN ids THEN ids ELSE ids + p END)
    REMOVE r.stagedJobId, r.stagedId, r.stagedType, r.stagedSource, r.stagedTarget,
           r.stagedPassageIds
  }
  DELETE s
}
"""
    + RECORD_RETIRED_VERSION
    + """
SET d.currentVersion = CASE WHEN j.version > d.currentVersion THEN j.version
                            ELSE d.currentVersion END,
    d.title = coalesce(j.title, d.title), d.uri = coalesce(j.uri, d.uri)
REMOVE j.unpublished
RETURN d.currentVersion AS currentVersion
"""
)

UNPUBLISHED_JOBS: LiteralString = """
MATCH (j:Job {status: 'COMMITTED'}) WHERE j.unpublished
OPTIONAL MATCH (d:Document {id: j.documentId})
RETURN j.id AS id, d.workspace AS workspace ORDER BY j.finishedAt
"""

JOB_STATUS: LiteralString = "MATCH (j:Job {id: $jobId}) RETURN j.status AS status"

FAIL_JOB: LiteralString = """
MATCH (j:Job {id: $jobId}) WHERE j.status = 'RUNNING'
SET j.status = 'FAILED', j.finishedAt = datetime()
RETURN j.id AS id
"""

# Cleanup of a FAILED job, in bounded transactions so a huge document cannot exhaust memory;
# the entities that mentioned its chunks count their ordered mentions down.
REMOVE_JOB_CHUNKS: LiteralString = (
    """
MATCH (c:Chunk {jobId: $jobId})
CALL (c) { """
    + FORGET_MENTIONS_OF_CHUNK
    + """ DETACH DELETE c } IN TRANSACTIONS OF 5000 ROWS
"""
)

# The job's staging, found by its job id (an index each, graph/graph_schema.py): nothing of a
# job that never committed is outside its chunks and its staging.
REMOVE_JOB_STAGED_ENTITIES: LiteralString = """
MATCH (s:StagedEntity {jobId: $jobId})
CALL (s) { DELETE s } IN TRANSACTIONS OF 5000 ROWS
"""

REMOVE_JOB_STAGED_RELATIONS: LiteralString = """
MATCH (s:StagedRelation {stagedJobId: $jobId})
CALL (s) { DELETE s } IN TRANSACTIONS OF 5000 ROWS
"""

# Everything a job that never committed wrote, each found by the job's id.
REMOVE_JOB_WRITES: tuple[LiteralString, ...] = (
    REMOVE_JOB_CHUNKS,
    REMOVE_JOB_STAGED_ENTITIES,
    REMOVE_JOB_STAGED_RELATIONS,
)

STALE_JOBS: LiteralString = """
MATCH (j:Job {status: 'RUNNING'})
WHERE j.startedAt < datetime() - duration({seconds: $olderThanSeconds})
RETURN j.id AS id ORDER BY j.startedAt
"""


class WorkspaceMismatch(ValueError):
    """A document id already belongs to another workspace."""


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    document_id: str
    version: int
    workspace: str  # its document's


async def begin_job(
    graph: Graph,
    document_id: str,
    workspace: str,
    title: str | None = None,
    uri: str | None = None,
    job_id: str | None = None,
    source_id: str | None = None,
) -> Job:
    """Create a RUNNING job writing the document's next version; `source_id` is the id the
    document has in the file it was loaded from (GraphRAG's, say), kept on a new document."""
    job_id = job_id or str(uuid.uuid4())
    rows = await graph.write(
        BEGIN_JOB,
        {
            "documentId": document_id,
            "workspace": workspace,
            "jobId": job_id,
            "title": title,
            "uri": uri,
            "sourceId": source_id,
        },
    )
    row = rows[0]
    if row["workspace"] != workspace:
        await fail_job(graph, job_id)
        raise WorkspaceMismatch(
            f"document {document_id} belongs to workspace {row['workspace']!r}, not {workspace!r}"
        )
    return Job(job_id, document_id, int(row["version"]), workspace)


async def write_passages(graph: Graph, job: Job, passages: Sequence[dict[str, Any]]) -> None:
    """Passages: dicts with id, position, text and optionally embedding."""
    await graph.write(
        WRITE_PASSAGES,
        {
            "documentId": job.document_id,
            "version": job.version,
            "jobId": job.id,
            "workspaceKey": workspace_key(job.workspace),
            "passages": [{"embedding": None, "sourceId": None, **p} for p in passages],
        },
    )


async def write_entities(graph: Graph, job: Job, entities: Sequence[dict[str, Any]]) -> None:
    """Entities: dicts with id, labels, name, description?, embedding?, mentions."""
    await graph.write(
        WRITE_ENTITIES,
        {
            "jobId": job.id,
            "entities": [
                {"description": None, "embedding": None, "mentions": [], "sourceId": None, **e}
                for e in entities
            ],
        },
    )


async def write_relations(graph: Graph, job: Job, relations: Sequence[dict[str, Any]]) -> None:
    """Relations: dicts with id, type, source, target, passageIds, properties?."""
    await graph.write(
        WRITE_RELATIONS,
        {
            "jobId": job.id,
            "relations": [{"passageIds": [], "properties": {}, **r} for r in relations],
        },
    )


async def commit_job(graph: Graph, job: Job, content_hash: str | None = None) -> int:
    """Commit the job: its status with what links its passages (in bounded transactions),
    then its document's version with the rest of its staging in one, in that order
    (docs/graph-model.md, "Readers", says why the order matters).

    `content_hash` (of the loaded line) is kept on the job with its status, so a reload of
    the same line can be recognised as unchanged. A job whose status was committed is never
    failed: if the second step does not happen, `jobs recover` finishes it.
    """
    await commit_first_step(graph, job, content_hash)
    return await _publish(graph, job.id, job.workspace)


async def commit_first_step(graph: Graph, job: Job, content_hash: str | None = None) -> None:
    """The commit's first step: the job's status, then what links its passages, `LINK_BATCH`
    staged entities or relations per transaction. Everything it links is hidden by the
    version until the second step moves it, so a stop between two batches changes no answer
    (and `jobs recover` publishes the whole staging)."""
    parameters = {"jobId": job.id, "contentHash": content_hash}
    if not await graph.write(MARK_COMMITTED, parameters):
        raise RuntimeError(f"job {job.id} is no longer RUNNING; it was recovered meanwhile")
    link = {"jobId": job.id, "workspaceKey": workspace_key(job.workspace)}
    for kind, statement in (
        ("entities", LINK_STAGED_ENTITIES),
        ("relations", LINK_STAGED_RELATIONS),
    ):
        rows = await graph.read(STAGED_KEYS[kind], {"jobId": job.id})
        keys = [row["key"] for row in rows]
        for first in range(0, len(keys), LINK_BATCH):
            await graph.write(statement, {**link, "keys": keys[first : first + LINK_BATCH]})


async def _publish(graph: Graph, job_id: str, workspace: str) -> int:
    # Idempotent (the version never moves backwards), so a recovery running beside a live
    # commit does no harm.
    rows = await graph.write(
        PUBLISH_VERSION, {"jobId": job_id, "workspaceKey": workspace_key(workspace)}
    )
    if not rows:
        raise RuntimeError(f"job {job_id} has no document to publish to")
    return int(rows[0]["currentVersion"])


async def fail_job(graph: Graph, job_id: str) -> None:
    """Mark a RUNNING job FAILED and remove everything it wrote; a committed job is left."""
    await graph.write(FAIL_JOB, {"jobId": job_id})
    status = await graph.read(JOB_STATUS, {"jobId": job_id})
    if not status or status[0]["status"] != "FAILED":
        return
    for statement in REMOVE_JOB_WRITES:
        await graph.auto_commit(statement, {"jobId": job_id})


async def publish_committed_jobs(graph: Graph) -> list[str]:
    """Finish every commit that stopped between its two steps; return the jobs' ids."""
    rows = await graph.read(UNPUBLISHED_JOBS, {})
    for row in rows:
        await _publish(graph, row["id"], row["workspace"] or "")
    return [row["id"] for row in rows]


async def recover_stale_jobs(graph: Graph, older_than: timedelta) -> list[str]:
    """Fail every RUNNING job started before `older_than` ago; return their ids."""
    rows = await graph.read(STALE_JOBS, {"olderThanSeconds": int(older_than.total_seconds())})
    job_ids = [row["id"] for row in rows]
    for job_id in job_ids:
        await fail_job(graph, job_id)
    return job_ids
