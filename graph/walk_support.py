"""Which relationships a walk step read qualify, and their support (contract §5, seed walk step
3: "An edge with a visible passage in scope is an assertion, and the edge lists up to three of
those passages. An edge with no passage is a path. An edge whose passages are all superseded or
out of scope is dropped."), deciding only as many as the walk can take.

A step reads up to `maxCandidates` relationships, but the bookkeeping (retrieval/
walk_bookkeeping.py) takes qualifying ones in candidate order (type, source id, target id,
relationship id) and stops at the first a bound refuses: it never looks past the
`maxEdges - edges + 1`-th qualifying one (`$edgeBudget`; edges already in the result are left
out beforehand, the bookkeeping skips them anyway). So around a hub only those are decided, not
every relationship read: their far end's returnability, their passages and those passages'
documents' versions.

Which ones they are is found by a first look (`look`) in candidate order, which decides
nothing: far end returnable, and a path or a passage current as the graph is read now. Then the
versions of the documents of the passages it found current are read, in one aggregation,
before any job the answer is decided with (docs/graph-model.md, "Readers"), and the candidates
it found are decided with them (`decided`). Should a version read differ from the one the look
saw (a commit landed in between, or an earlier statement of the walk read an older one), every
candidate is decided, with the versions of all their passages' documents, as without the look.
"""

from __future__ import annotations

from typing import LiteralString

from graph.lookups import PASSAGE_MAP
from graph.mention_reads import ScopeShape
from graph.visibility import (
    document_in_scope,
    document_versions,
    entity_returnable,
    evidence_order,
    passage_current,
    passage_current_in,
)

# A subquery body for the relationship `r`, a row of `considered` (`considered`): its visible
# supporting passages (up to three, by document id, position, id) and its kind, current by
# `versions`. The passages are the look's when it decided nothing changed, else all `r` lists.
# Binds `evidenceIds`, `evidence` (passage maps, only when `$withEvidence`) and `kind`:
# 'ASSERTION', 'PATH', or null for an edge to drop.
EDGE_SUPPORT: LiteralString = (
    "CALL (r, row, versions) {"
    " MATCH (d:Document)-[:HAS_PART]->(c:Chunk)"
    " WHERE c.id IN coalesce(row.passages, r.passageIds, []) AND "
    + document_in_scope("d")
    + " AND "
    + passage_current_in("c", "d", "versions")
    + " WITH c, d "
    + evidence_order("d", "c")
    + " LIMIT $evidenceLimit"
    " RETURN collect(c.id) AS evidenceIds,"
    " collect(CASE WHEN $withEvidence THEN " + PASSAGE_MAP + " END) AS evidence"
    " }"
    " WITH *, CASE WHEN size(coalesce(r.passageIds, [])) = 0 THEN 'PATH'"
    " WHEN size(evidenceIds) > 0 THEN 'ASSERTION' END AS kind"
)


def look(rows: LiteralString, budget: LiteralString, shape: ScopeShape) -> LiteralString:
    """A CALL clause over the list `rows` (maps `{r, far}`) in its order: the first `budget`
    that qualify as the graph is read now. Binds `looked` (for each, `{at: its position in
    rows, passages: the ids of its passages found current}`) and `seen` (`[document id,
    version]` of each of those passages: its own version, which its document's read gave).
    Decides nothing."""
    return (
        f"CALL ({rows}) {{"
        f" UNWIND range(0, size({rows}) - 1) AS at"
        f" WITH at, {rows}[at].r AS r, {rows}[at].far AS lookFar"
        " WHERE " + entity_returnable("lookFar", shape) + " CALL (r) {"
        " MATCH (lookDoc:Document)-[:HAS_PART]->(lookChunk:Chunk)"
        " WHERE lookChunk.id IN coalesce(r.passageIds, []) AND "
        + document_in_scope("lookDoc")
        + " AND "
        + passage_current("lookChunk", "lookDoc.currentVersion")
        + " WITH lookChunk, lookDoc "
        + evidence_order("lookDoc", "lookChunk")
        + " LIMIT $evidenceLimit"
        " RETURN collect(lookChunk.id) AS passages,"
        " collect([lookDoc.id, lookChunk.version]) AS pairs"
        " }"
        " WITH at, r, passages, pairs"
        " WHERE size(coalesce(r.passageIds, [])) = 0 OR size(passages) > 0"
        f" WITH at, passages, pairs LIMIT {budget}"
        " RETURN collect({at: at, passages: passages}) AS looked,"
        " reduce(gathered = [], found IN collect(pairs) | gathered + found) AS seen"
        " }"
    )


def considered(rows: LiteralString, budget: LiteralString, shape: ScopeShape) -> LiteralString:
    """Clauses binding `versions` (`$knownVersions`, what the walk's earlier statements read,
    plus what this one read; each document read once per walk), `changed` and `considered`:
    the rows of `rows` to decide with them, each with `passages` (the look's, when nothing
    changed; null when every row is decided). When nothing changed, the look's rows, whose far
    end it found returnable (returnability does not depend on versions): check it again only
    when `changed` (`far_returnable`)."""
    return (
        look(rows, budget, shape)
        + " CALL (seen) { UNWIND seen AS pair MATCH (seenDoc:Document {id: pair[0]})"
        + document_versions("seenDoc", "seenVersions", "$knownVersions")
        + " }"
        " WITH *, $knownVersions + seenVersions AS firstVersions"
        " WITH *, any(pair IN seen"
        " WHERE head([read IN firstVersions WHERE read[0] = pair[0] | read[1]]) <> pair[1])"
        " AS changed"
        f" WITH *, CASE WHEN changed THEN {rows}"
        f" ELSE [row IN looked | {{r: {rows}[row.at].r, far: {rows}[row.at].far,"
        " passages: row.passages}] END"
        " AS considered"
        " CALL (considered, changed, firstVersions) {"
        " UNWIND CASE WHEN changed THEN considered ELSE [] END AS row"
        " UNWIND coalesce(row.r.passageIds, []) AS passageId"
        " MATCH (d:Document)-[:HAS_PART]->(:Chunk {id: passageId})"
        " WHERE "
        + document_in_scope("d")
        + document_versions("d", "moreVersions", "firstVersions")
        + " }"
        " WITH *, firstVersions + moreVersions AS versions"
    )


def far_returnable(far: LiteralString, shape: ScopeShape) -> LiteralString:
    """For a row of `considered`: its far end is returnable (checked only when `changed`)."""
    return f"CASE WHEN changed THEN {entity_returnable(far, shape)} ELSE true END"
