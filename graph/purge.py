"""`evidencegraph purge`: what no reader can see any more, removed from the store (contract §11).

Each step is one statement that finds what it removes and removes it in bounded transactions
(`CALL { … } IN TRANSACTIONS OF $batch ROWS`, run by `Graph.auto_commit_rows`), and reports
how much. In this order, each step relying on the ones before:

    staging      staged entities and relations of jobs that will never commit (FAILED, or gone)
    deletions    deletions settled before the horizon are made final: their retirement forgets
                 the version it took away, so no reload restores it (graph/restoration.py)
    passages     passages of FAILED jobs, and superseded passages: of versions older than their
                 document's current one, so all of a retired document's once its deletion is
                 final (never one a reload can still restore); their mentions go
                 with them, counted down in their entities' `orderedMentions`
    relations    `passageIds` that name no stored passage are dropped; a relation left with none
                 is removed (it was dropped by the walk, and must not become a path)
    entities     entities no passage mentions (never returnable), with their relations
    documents    retired documents with nothing left, and their jobs
    jobs         finished jobs older than the current version of their document, with nothing
                 left that names them
    retirements  versions in `retiredVersions` below the current one (they decide nothing)

What it never touches (docs/graph-model.md, "Purge"):
- anything current, and anything a job under way (RUNNING, or COMMITTED and not yet published)
  wrote or refers to: its passages, its staging, the stored passages its staging names;
- anything settled for less than `older_than`: a superseded passage whose document's current
  version was committed less than that long ago, a FAILED job's passages when it failed less
  than that long ago, a retired document retired less than that long ago, a job finished less
  than that long ago. A read that began before a commit may still be reading the version it
  superseded; `older_than` must be longer than any read (the default, 1h, is);
- a superseded passage that is its document's last word on an entity: when no current passage
  of the document mentions the entity, the latest published passage that does is kept
  (`visibility.passage_published`: a FAILED job's passage is none), so the entity stays
  returnable (UNSUPPORTED) in every scope that holds the document, as it was;
- entities while a job is under way: a load may refer to one by id before it mentions it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import LiteralString

from graph.driver import Graph
from graph.mention_order import FORGET_MENTIONS_OF_CHUNK
from graph.visibility import document_retired, passage_published

# Rows per transaction of every step.
BATCH = 1000

_HORIZON: LiteralString = "(datetime() - duration({seconds: $olderThanSeconds}))"

# A job under way: RUNNING, or COMMITTED and not yet published (`jobs.commit_job`).
_UNDER_WAY: LiteralString = "(job.status = 'RUNNING' OR coalesce(job.unpublished, false))"


def _job_under_way(job_id: LiteralString) -> LiteralString:
    return f"EXISTS {{ MATCH (job:Job {{id: {job_id}}}) WHERE {_UNDER_WAY} }}"


REMOVE_STALE_STAGED_ENTITIES: LiteralString = (
    "MATCH (s:StagedEntity) WHERE NOT " + _job_under_way("s.jobId") + " CALL (s) { DELETE s }"
    " IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS removed"
)

REMOVE_STALE_STAGED_RELATIONS: LiteralString = (
    "MATCH (s:StagedRelation) WHERE NOT "
    + _job_under_way("s.stagedJobId")
    + " CALL (s) { DELETE s } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS removed"
)

# The stored passages that jobs under way name besides their own (an entity's mention or a
# relation's support): few, read once beforehand, and never removed. (A read of its own: a
# statement that writes looks unique ids up with locks, which the outer part of a
# `CALL … IN TRANSACTIONS` would hold against its own inner transactions.)
NAMED_BY_STAGING: LiteralString = (
    "CALL () {"
    " OPTIONAL MATCH (s:StagedEntity)"
    " UNWIND coalesce(s.mentions, []) AS passageId"
    " WITH s.jobId AS jobId, passageId"
    " WHERE NOT EXISTS { MATCH (own:Chunk {id: passageId}) WHERE own.jobId = jobId }"
    " RETURN collect(DISTINCT passageId) AS mentioned"
    " }"
    " CALL () {"
    " OPTIONAL MATCH (s:StagedRelation)"
    " UNWIND coalesce(s.stagedPassageIds, []) AS passageId"
    " WITH s.stagedJobId AS jobId, passageId"
    " WHERE NOT EXISTS { MATCH (own:Chunk {id: passageId}) WHERE own.jobId = jobId }"
    " RETURN collect(DISTINCT passageId) AS supporting"
    " }"
    " RETURN mentioned + supporting AS namedByStaging"
)

# `c` (a passage of `d` that is not current) is not its document's last word on an entity:
# every entity that mentions it is also mentioned by a current passage of `d`, or by a later
# published one (by version, then id: `visibility.passage_published`, so never one a job under
# way or a FAILED job wrote, which counts for no entity's returnability). So for each
# document and entity, the greatest published mentioning passage stays, and with it the
# entity's returnability in every scope.
_NOT_LAST_WORD: LiteralString = (
    "NOT EXISTS {"
    " MATCH (e:Entity)-[:MENTIONED_IN]->(c)"
    " WHERE NOT EXISTS {"
    "  MATCH (e)-[:MENTIONED_IN]->(other:Chunk)<-[:HAS_PART]-(d)"
    "  WHERE other <> c AND (other.version = d.currentVersion"
    "   OR ((other.version > c.version OR (other.version = c.version AND other.id > c.id))"
    "    AND " + passage_published("other", "d") + "))"
    " }"
    "}"
)

# Passages of FAILED jobs that failed before the horizon, and superseded passages of documents
# whose current version was committed before it (all passages of a retired one, once its
# deletion is final: until then a reload may restore them, so none of them goes). A FAILED
# job's passage is never anyone's last word: it makes no entity returnable. In the same inner
# transaction as each passage's removal, the entities whose ordered mentions go with it count
# them down (graph/mention_order.py), so a hub stays read in order.
REMOVE_PASSAGES: LiteralString = (
    "MATCH (d:Document)"
    " OPTIONAL MATCH (currentJob:Job {documentId: d.id})"
    " WHERE currentJob.version = d.currentVersion"
    " WITH d, " + document_retired("d") + " AS retired,"
    "  coalesce(currentJob.finishedAt < " + _HORIZON + ", true) AS settled,"
    "  currentJob.retiredFrom IS NOT NULL AS restorable"
    " MATCH (d)-[:HAS_PART]->(c:Chunk)"
    " WHERE c.version <> d.currentVersion AND NOT c.id IN $namedByStaging"
    " OPTIONAL MATCH (writer:Job {id: c.jobId})"
    " WITH d, c, retired, settled, restorable, writer,"
    "  coalesce(writer.status = 'FAILED', false) AS failed"
    " WHERE NOT coalesce(writer.status = 'RUNNING' OR writer.unpublished, false)"
    "  AND (failed OR NOT restorable)"
    "  AND CASE WHEN failed THEN coalesce(writer.finishedAt < " + _HORIZON + ", true)"
    "   ELSE c.version < d.currentVersion AND settled END"
    "  AND (retired OR failed OR " + _NOT_LAST_WORD + ")"
    " CALL (c) { " + FORGET_MENTIONS_OF_CHUNK + " DETACH DELETE c } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS removed, count(CASE WHEN failed THEN 1 END) AS failed"
)

# A relation's `passageIds` keep the stored passages; one left with none is removed. The
# relation is locked (by a property set and removed in the same transaction, as
# `jobs.BEGIN_JOB` locks a document) before its list is read, so a commit adding to the list
# meanwhile is not lost. The passages are looked up in the inner transactions only: a lookup
# of a missing unique id in a writing statement locks that id until its transaction ends.
PRUNE_RELATIONS: LiteralString = (
    "MATCH (:Entity)-[r]->(:Entity)"
    " WHERE r.passageIds IS :: LIST<ANY> AND size(r.passageIds) > 0"
    " CALL (r) {"
    "  WITH r WHERE any(passageId IN r.passageIds"
    "   WHERE NOT EXISTS { MATCH (:Chunk {id: passageId}) })"
    "  SET r.purgeLock = true"
    "  WITH r, [passageId IN r.passageIds"
    "   WHERE EXISTS { MATCH (:Chunk {id: passageId}) }] AS kept"
    "  REMOVE r.purgeLock WITH r, kept"
    "  CALL (r, kept) { WITH r, kept WHERE size(kept) > 0 SET r.passageIds = kept }"
    "  CALL (r, kept) { WITH r, kept WHERE size(kept) = 0 DELETE r }"
    "  RETURN size(kept) = 0 AS removed"
    " } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS pruned, count(CASE WHEN removed THEN 1 END) AS removed"
)

# A deletion settled before the horizon is made final: its retirement job forgets the version
# it took away (`restoration.RECORD_RETIRED_VERSION`), so a reload of that line no longer
# restores it, and from then on the passages step may remove the document's passages. Under
# the document's write lock, which a restore takes too, and checked again under it: a restore
# either happened before (the document is not retired by this job any more, and stays as it
# is) or finds the deletion final and changes nothing. So a restore never brings back a
# version purge has begun to remove.
FINALISE_DELETIONS: LiteralString = (
    "MATCH (d:Document) WHERE " + document_retired("d") + ""
    " MATCH (retiring:Job {documentId: d.id})"
    " WHERE retiring.version = d.currentVersion AND retiring.retiredFrom IS NOT NULL"
    "  AND retiring.finishedAt < " + _HORIZON + ""
    " CALL (d, retiring) {"
    "  SET d.allocatingVersion = true"
    "  WITH d, retiring, retiring.version = d.currentVersion AS stillRetired"
    "  REMOVE d.allocatingVersion"
    "  WITH retiring WHERE stillRetired"
    "  REMOVE retiring.retiredFrom"
    "  RETURN true AS finalised"
    " } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS finalised"
)

JOBS_UNDER_WAY: LiteralString = (
    "MATCH (job:Job) WHERE job.status IN ['RUNNING', 'COMMITTED'] AND " + _UNDER_WAY + ""
    " RETURN count(job) AS underWay"
)

# Entities no passage mentions, locked and checked again before they go (a commit may add a
# mention meanwhile), each with its relations; none while a job is under way.
REMOVE_ENTITIES: LiteralString = (
    "MATCH (e:Entity) WHERE NOT EXISTS { (e)-[:MENTIONED_IN]->() }"
    " CALL (e) {"
    "  SET e.purgeLock = true"
    "  WITH e, NOT EXISTS { (e)-[:MENTIONED_IN]->() }"
    "   AND NOT EXISTS { MATCH (job:Job) WHERE job.status = 'RUNNING' }"
    "   AND NOT EXISTS { MATCH (job:Job {status: 'COMMITTED'}) WHERE job.unpublished } AS orphan"
    "  REMOVE e.purgeLock"
    "  WITH e WHERE orphan"
    "  WITH e, COUNT { (e)-[]-() } AS relations"
    "  DETACH DELETE e"
    "  RETURN relations"
    " } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS removed, coalesce(sum(relations), 0) AS relations"
)

# Retired documents with no passage left, retired before the horizon, with no job under way;
# locked (with `jobs.BEGIN_JOB`'s lock, so a load beginning meanwhile waits) and checked again.
_DOCUMENT_GONE: LiteralString = (
    document_retired("d") + " AND NOT EXISTS { (d)-[:HAS_PART]->() }"
    " AND NOT EXISTS { MATCH (job:Job {documentId: d.id}) WHERE " + _UNDER_WAY + " }"
)
REMOVE_RETIRED_DOCUMENTS: LiteralString = (
    "MATCH (d:Document) WHERE "
    + _DOCUMENT_GONE
    + " OPTIONAL MATCH (retiring:Job {documentId: d.id}) WHERE retiring.version = d.currentVersion"
    " WITH d WHERE coalesce(retiring.finishedAt < " + _HORIZON + ", true)"
    "  AND retiring.retiredFrom IS NULL"
    " CALL (d) {"
    "  SET d.allocatingVersion = true"
    "  WITH d, " + _DOCUMENT_GONE + " AS gone"
    "  REMOVE d.allocatingVersion"
    "  WITH d WHERE gone"
    "  CALL (d) { MATCH (job:Job {documentId: d.id}) DELETE job RETURN count(job) AS jobs }"
    "  DETACH DELETE d"
    "  RETURN jobs"
    " } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS removed, coalesce(sum(jobs), 0) AS jobs"
)

# Finished jobs below their document's current version (never the current version's job: it
# makes that version's passages current and holds its content hash; never one above it: the
# next version is allocated above every job's), with no passage or staging left naming them.
REMOVE_JOBS: LiteralString = (
    "MATCH (job:Job) WHERE job.status IN ['COMMITTED', 'FAILED']"
    " AND job.finishedAt < " + _HORIZON + " AND NOT coalesce(job.unpublished, false)"
    " OPTIONAL MATCH (d:Document {id: job.documentId})"
    " WITH job, d WHERE (d IS NULL OR job.version < d.currentVersion)"
    "  AND NOT EXISTS { MATCH (:Chunk {jobId: job.id}) }"
    "  AND NOT EXISTS { MATCH (:StagedEntity {jobId: job.id}) }"
    "  AND NOT EXISTS { MATCH (:StagedRelation {stagedJobId: job.id}) }"
    " CALL (job) { DELETE job } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS removed"
)

# Versions below the current one decide nothing (`visibility.document_retired` asks whether
# the current one is listed); the current one and any above it (retirements under way) stay.
PRUNE_RETIRED_VERSIONS: LiteralString = (
    "MATCH (d:Document)"
    " WHERE any(version IN coalesce(d.retiredVersions, []) WHERE version < d.currentVersion)"
    " CALL (d) {"
    "  SET d.allocatingVersion = true"
    "  WITH d, [version IN d.retiredVersions WHERE version >= d.currentVersion] AS kept"
    "  SET d.retiredVersions = CASE WHEN size(kept) = 0 THEN null ELSE kept END"
    "  REMOVE d.allocatingVersion"
    " } IN TRANSACTIONS OF $batch ROWS"
    " RETURN count(*) AS pruned"
)


@dataclass
class PurgeReport:
    """What one purge removed, step by step."""

    staged_entities: int = 0
    staged_relations: int = 0
    failed_passages: int = 0  # passages of FAILED jobs
    superseded_passages: int = 0  # of older versions (a retired document's included)
    relations_pruned: int = 0  # relations whose `passageIds` lost ids
    relations_removed: int = 0  # of those, the ones left with none
    entities_removed: int = 0
    entity_relations_removed: int = 0  # relationships removed with those entities
    entities_skipped_for_jobs: int = 0  # jobs under way when the entities' step came
    documents_removed: int = 0  # retired documents
    deletions_finalised: int = 0  # deletions a reload can no longer undo
    jobs_removed: int = 0  # with their documents and on their own
    retired_versions_pruned: int = 0  # documents whose `retiredVersions` lost entries
    steps: list[str] = field(default_factory=list)  # the steps run, in order

    def lines(self) -> list[str]:
        skipped = (
            f" (not run: {self.entities_skipped_for_jobs} job(s) under way; run purge again"
            " when no load runs)"
            if self.entities_skipped_for_jobs
            else ""
        )
        return [
            f"passages: {self.superseded_passages} superseded, {self.failed_passages} of failed"
            " jobs",
            f"documents: {self.documents_removed} deleted documents; {self.deletions_finalised}"
            " deletions made final (a reload no longer restores them)",
            f"entities: {self.entities_removed} no passage mentions, with "
            f"{self.entity_relations_removed} relationships{skipped}",
            f"relations: {self.relations_pruned} lost passages they named, "
            f"{self.relations_removed} of them removed (none left)",
            f"jobs: {self.jobs_removed} finished",
            f"staging: {self.staged_entities} entities and {self.staged_relations} relations"
            " of jobs that will never commit",
        ]


async def purge(
    graph: Graph,
    older_than: timedelta,
    batch: int = BATCH,
    on_step: Callable[[str, PurgeReport], None] | None = None,
) -> PurgeReport:
    """Remove what no reader can see any more and nothing under way needs (module docstring).

    `on_step` is told each step's name once it is done, with the report so far."""
    report = PurgeReport()
    parameters: dict[str, object] = {
        "olderThanSeconds": int(older_than.total_seconds()),
        "batch": batch,
    }

    async def step(name: str, statement: LiteralString) -> dict[str, int]:
        rows = await graph.auto_commit_rows(statement, parameters)
        report.steps.append(name)
        values = {key: int(value) for key, value in dict(rows[0]).items()}
        return values

    def done(name: str) -> None:
        if on_step is not None:
            on_step(name, report)

    report.staged_entities = (await step("staging", REMOVE_STALE_STAGED_ENTITIES))["removed"]
    report.staged_relations = (await step("staging", REMOVE_STALE_STAGED_RELATIONS))["removed"]
    done("staging")
    report.deletions_finalised = (await step("deletions", FINALISE_DELETIONS))["finalised"]
    done("deletions")
    named = await graph.read(NAMED_BY_STAGING, {})
    parameters["namedByStaging"] = list(named[0]["namedByStaging"])
    passages = await step("passages", REMOVE_PASSAGES)
    report.failed_passages = passages["failed"]
    report.superseded_passages = passages["removed"] - passages["failed"]
    done("passages")
    relations = await step("relations", PRUNE_RELATIONS)
    report.relations_pruned, report.relations_removed = relations["pruned"], relations["removed"]
    done("relations")
    under_way = (await graph.read(JOBS_UNDER_WAY, {}))[0]["underWay"]
    if under_way:
        report.entities_skipped_for_jobs = int(under_way)
    else:
        entities = await step("entities", REMOVE_ENTITIES)
        report.entities_removed = entities["removed"]
        report.entity_relations_removed = entities["relations"]
    done("entities")
    documents = await step("documents", REMOVE_RETIRED_DOCUMENTS)
    report.documents_removed = documents["removed"]
    report.jobs_removed = documents["jobs"]
    done("documents")
    report.jobs_removed += (await step("jobs", REMOVE_JOBS))["removed"]
    done("jobs")
    pruned = await step("retirements", PRUNE_RETIRED_VERSIONS)
    report.retired_versions_pruned = pruned["pruned"]
    done("retirements")
    return report
