"""What the graph already holds of the ids one document version names: one read per line.

Before a line becomes a job, the loader needs four answers, and asks for them in a single
statement so checking a line costs one round trip whatever its size:

    the document's workspace and the content hash of its current committed version
        (same hash: the line is unchanged and nothing is written)
    which of the line's own passage ids are already stored, and where
        (a new version needs new passage ids)
    which of the passage ids it refers to but does not hold exist, and in which workspace
    which of the entity ids it names (its own and those it refers to) exist, and their owners
    which of its relation ids are stored between the same ends, and their owners

The owners are what the ownership rule (contract §2 "Ownership") is checked against: a line
of workspace W may name only W's entities, relations and passages. A relation is looked for
between its own ends only, which takes no scan of every relationship: a load merges a
relation between its ends and nowhere else, and its ends are W's own or new (an end owned by
anyone else refuses the line), so no other relationship could be changed by it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import LiteralString

from graph.driver import Graph
from graph.ownership import OWNER
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
  OPTIONAL MATCH (home:Document {id: c.documentId})
  RETURN collect({id: c.id, workspace: home.workspace}) AS foundPassages
}
CALL () {
  UNWIND $entityIds AS id
  MATCH (e:Entity {id: id})
  RETURN collect({id: e.id, owner: e.`"""
    + OWNER
    + """`}) AS foundEntities
}
CALL () {
  UNWIND $relations AS relation
  MATCH (:Entity {id: relation.source})-[r]->(:Entity {id: relation.target})
  WHERE r.id = relation.id
  RETURN collect({id: r.id, owner: r.`"""
    + OWNER
    + """`}) AS foundRelations
}
RETURN d.workspace AS workspace, contentHash, takenCount, taken, foundPassages, foundEntities,
       foundRelations,
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
class RelationEnds:
    """A relation of the line: its id and the entities it links."""

    id: str
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class StoredReferences:
    workspace: str | None  # None: the document is new
    content_hash: str | None  # of the current committed version, if a load wrote it
    taken_count: int
    taken: tuple[TakenPassage, ...]  # the first TAKEN_REPORTED, by id
    found_passages: Mapping[str, str | None]  # passage id -> its document's workspace
    found_entities: Mapping[str, str | None]  # entity id -> its owner (None: unowned)
    found_relations: Mapping[str, str | None]  # relation id -> its owner (None: unowned)
    retired: bool = False  # the document was deleted (`evidencegraph delete`)


async def stored_references(
    graph: Graph,
    document_id: str,
    own_passage_ids: Sequence[str],
    passage_ids: Sequence[str],
    entity_ids: Sequence[str],
    relations: Sequence[RelationEnds] = (),
) -> StoredReferences:
    """The graph's answers for one line: `passage_ids` are its external ones, `entity_ids`
    every entity id it names, `relations` its relations' ids with their ends."""
    rows = await graph.read(
        STORED_REFERENCES,
        {
            "documentId": document_id,
            "ownPassageIds": list(own_passage_ids),
            "passageIds": list(passage_ids),
            "entityIds": list(entity_ids),
            "relations": [{"id": r.id, "source": r.source, "target": r.target} for r in relations],
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
        found_passages={item["id"]: item["workspace"] for item in row["foundPassages"]},
        found_entities={item["id"]: item["owner"] for item in row["foundEntities"]},
        found_relations={item["id"]: item["owner"] for item in row["foundRelations"]},
        retired=bool(row["retired"]),
    )
