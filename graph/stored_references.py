"""What the graph already holds of the ids one document version names: one read per line.

Before a line becomes a job, the loader needs four answers, and asks for them in a single
statement so checking a line costs one round trip whatever its size:

    the document's workspace and the content hash of its current committed version
        (same hash: the line is unchanged and nothing is written)
    which of the line's own passage ids are already stored, and where
        (a new version needs new passage ids)
    which of the passage ids it refers to but does not hold exist
    which of the entity ids it refers to but does not hold exist
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import LiteralString

from graph.driver import Graph
from graph.visibility import document_retired

# Passages of the line already stored are named in an error; a few say enough.
TAKEN_REPORTED = 5

STORED_REFERENCES: LiteralString = (
    """
OPTIONAL MATCH (d:Document {id: $documentId})
OPTIONAL MATCH (current:Job {documentId: $documentId, status: 'COMMITTED'})
  WHERE current.version = d.currentVersion
WITH d, head(collect(current.contentHash)) AS contentHash
CALL () {
  UNWIND $ownPassageIds AS id
  MATCH (c:Chunk {id: id})
  OPTIONAL MATCH (writer:Job {id: c.jobId})
  WITH c, writer ORDER BY c.id
  RETURN count(c) AS takenCount,
         collect({id: c.id, documentId: c.documentId, version: c.version,
                  jobId: c.jobId, jobStatus: writer.status})[..$takenReported] AS taken
}
CALL () {
  UNWIND $passageIds AS id
  MATCH (c:Chunk {id: id})
  RETURN collect(c.id) AS foundPassages
}
CALL () {
  UNWIND $entityIds AS id
  MATCH (e:Entity {id: id})
  RETURN collect(e.id) AS foundEntities
}
RETURN d.workspace AS workspace, contentHash, takenCount, taken, foundPassages, foundEntities,
       coalesce("""
    + document_retired("d")
    + """, false) AS retired
"""
)


@dataclass(frozen=True, slots=True)
class TakenPassage:
    """A passage id of the line that the graph already holds."""

    id: str
    document_id: str | None
    version: int | None
    job_id: str | None
    job_status: str | None  # None: written outside the job path


@dataclass(frozen=True, slots=True)
class StoredReferences:
    workspace: str | None  # None: the document is new
    content_hash: str | None  # of the current committed version, if a load wrote it
    taken_count: int
    taken: tuple[TakenPassage, ...]  # the first TAKEN_REPORTED, by id
    found_passages: frozenset[str]
    found_entities: frozenset[str]
    retired: bool = False  # the document was deleted (`evidencegraph delete`)


async def stored_references(
    graph: Graph,
    document_id: str,
    own_passage_ids: Sequence[str],
    passage_ids: Sequence[str],
    entity_ids: Sequence[str],
) -> StoredReferences:
    """The graph's answers for one line; `passage_ids` / `entity_ids` are its external ones."""
    rows = await graph.read(
        STORED_REFERENCES,
        {
            "documentId": document_id,
            "ownPassageIds": list(own_passage_ids),
            "passageIds": list(passage_ids),
            "entityIds": list(entity_ids),
            "takenReported": TAKEN_REPORTED,
        },
    )
    row = rows[0]
    return StoredReferences(
        workspace=row["workspace"],
        content_hash=row["contentHash"],
        taken_count=int(row["takenCount"]),
        taken=tuple(
            TakenPassage(
                id=item["id"],
                document_id=item["documentId"],
                version=item["version"],
                job_id=item["jobId"],
                job_status=item["jobStatus"],
            )
            for item in row["taken"]
        ),
        found_passages=frozenset(row["foundPassages"]),
        found_entities=frozenset(row["foundEntities"]),
        retired=bool(row["retired"]),
    )
