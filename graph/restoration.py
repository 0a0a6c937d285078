"""A deleted document comes back: loading the very line it was deleted as undoes its retirement.

A retirement (graph/retirement.py) moves `currentVersion` from the version readers saw, V, to
a version with no passages, R; V's passages stay stored, untouched, until purge removes them.
So the document is brought back by moving `currentVersion` from R back to V, in one
transaction: the single property every reader decides with, read once per statement
(docs/graph-model.md, "Readers"), so a reader sees the retirement (nothing) or V (all of it),
never a mix. Nothing else is written, so every answer is the one it was before the delete,
and nobody else's changes.

What that takes, all checked in that one transaction under the document's write lock (the
lock `jobs.BEGIN_JOB`, the retirements and purge take):

    recorded   the retirement recorded V when it published (`RECORD_RETIRED_VERSION`: the
               version current just before it; for a retirement of a retirement, the version
               that one retired)
    not final  purge has not made the delete final: before it removes a retired document's
               passages it removes the record (graph/purge.py, FINALISE_RETIREMENTS), so V is
               whole whenever it is recorded
    same line  the line's content hash is the one V's job committed with
    quiet      no job of the document is under way (RUNNING, or COMMITTED and unpublished):
               such a job began after the retirement and would bring the document back as a
               new version or retire it again; the last job to begin wins, and the restore
               would otherwise overtake it

Otherwise nothing changes and the load goes on as before: a changed line needs new passage
ids (its old ones are V's), and once purge made the delete final the document is new.

`currentVersion` moves backwards here, the one place it does. The next version is still
allocated above every job of the document (the retirement's included, which purge keeps: it
is above the current version), so no version is used twice.
"""

from __future__ import annotations

from enum import Enum
from typing import LiteralString

from graph.driver import Graph
from graph.visibility import document_retired

# A subquery for a statement that binds a retirement job `j` (`retires: true`) and its
# document `d`, run before it moves `d.currentVersion` to `j.version`: records on the job the
# version it takes away. Only when the version does move (publishing again records nothing
# new), and through a retirement of a retirement to the version that one took away; null when
# there is none (the document had no committed version, or purge made that delete final).
RECORD_RETIRED_VERSION: LiteralString = (
    "CALL (j, d) {"
    " WITH j, d WHERE j.retires AND j.version > d.currentVersion AND d.currentVersion >= 1"
    " OPTIONAL MATCH (previous:Job {documentId: d.id}) WHERE previous.version = d.currentVersion"
    " SET j.retiredFrom = CASE WHEN " + document_retired("d") + " THEN previous.retiredFrom"
    "  ELSE d.currentVersion END"
    " }"
)

RESTORE_RETIRED: LiteralString = (
    "MATCH (d:Document {id: $documentId})"
    " SET d.allocatingVersion = true"
    " WITH d"
    " OPTIONAL MATCH (retiring:Job {documentId: d.id}) WHERE retiring.version = d.currentVersion"
    " OPTIONAL MATCH (restored:Job {documentId: d.id, status: 'COMMITTED'})"
    "  WHERE restored.version = retiring.retiredFrom"
    " WITH d, restored, CASE"
    "  WHEN NOT " + document_retired("d") + " THEN 'NOT_RETIRED'"
    "  WHEN restored IS NULL THEN 'FINAL'"
    "  WHEN restored.contentHash IS NULL OR restored.contentHash <> $contentHash"
    "   THEN 'OTHER_LINE'"
    "  WHEN EXISTS { MATCH (job:Job {documentId: d.id})"
    "   WHERE job.status = 'RUNNING' OR coalesce(job.unpublished, false) } THEN 'JOB_UNDER_WAY'"
    "  ELSE 'RESTORED' END AS outcome"
    " CALL (d, restored, outcome) {"
    "  WITH d, restored WHERE outcome = 'RESTORED' SET d.currentVersion = restored.version"
    " }"
    " REMOVE d.allocatingVersion"
    " RETURN outcome, restored.version AS version"
)


class Restoration(Enum):
    """What `restore_retired` did."""

    RESTORED = "RESTORED"  # the document is back, as the version it was deleted as
    NOT_RETIRED = "NOT_RETIRED"  # nothing to undo (no such document, or it is not deleted)
    FINAL = "FINAL"  # purge made the delete final (or nothing was recorded to restore)
    OTHER_LINE = "OTHER_LINE"  # the line is not the one the document was deleted as
    JOB_UNDER_WAY = "JOB_UNDER_WAY"  # a later load or delete of the document is under way


async def restore_retired(graph: Graph, document_id: str, content_hash: str) -> Restoration:
    """Undo the deletion of `document_id` if the line with `content_hash` is the version it
    was deleted as (module docstring); otherwise change nothing and say why."""
    rows = await graph.write(
        RESTORE_RETIRED, {"documentId": document_id, "contentHash": content_hash}
    )
    return Restoration(rows[0]["outcome"]) if rows else Restoration.NOT_RETIRED
