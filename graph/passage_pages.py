"""Passages a page at a time (the paged fields `Entity.evidencePage`, `Edge.evidencePage` and
`Document.passages`), each read by seeking its sort key, never by an offset.

    an entity's evidence   visible passages mentioning it, in evidence order (contract §3:
                           document id, position, passage id), after a cursor key
    an edge's evidence     visible passages among its `passageIds`, in evidence order
    a document's passages  visible passages of its current version, by position then id

Every read takes `first + 1` rows (`$maxLimit`, the largest of the batch) so the caller knows
whether a next page exists, and applies the visibility rule of graph/visibility.py as every
other read does: each document's version is read once, in an aggregation, before any passage
or job it decides (docs/graph-model.md, "Readers").

Hubs (contract §5): an entity's page seeks the mention order indexes from its key
(graph/mention_reads.py `mentions_in_order(after=…)`); a document's page seeks
`chunk_document_order` (document id, version, position, id) from its key. An edge's page reads
its `passageIds`, which the relation itself bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from contract.page_cursor import DocumentKey, EvidenceKey
from contract.scope import Scope
from graph.driver import Graph
from graph.lookups import PASSAGE_MAP, scoped
from graph.mention_reads import ScopeShape, evidence_after, for_each_shape, scope_shape
from graph.records import PassageRecord
from graph.served_statements import served, served_each
from graph.visibility import (
    document_in_scope,
    document_versions,
    evidence_order,
    passage_current,
    passage_current_in,
    version_retired,
    versions_of_mentions,
    visible_passages_of_entity,
)

_LEAST_INTEGER: LiteralString = "-9223372036854775808"


@dataclass(frozen=True, slots=True)
class PageRequest:
    """One page: whose (an entity, edge or document id), how many, after which key."""

    owner: str
    first: int
    after: EvidenceKey | DocumentKey | None


def _entity_evidence_pages(shape: ScopeShape) -> LiteralString:
    # One entity per statement key (the loader sends each entity once), so the look of
    # `versions_of_mentions` finds its key by the entity's id.
    return (
        "CALL () {"
        " UNWIND $keys AS key MATCH (e:Entity {id: key.id})"
        " WITH collect(e) AS entities"
        " CALL (entities) { "
        + versions_of_mentions(
            "entities",
            "versions",
            "$maxLimit",
            shape,
            after="head([key IN $keys WHERE key.id = versionEntity.id | key.after])",
        )
        + " }"
        " RETURN versions, versionsLooked"
        " }"
        " UNWIND $keys AS key"
        " MATCH (e:Entity {id: key.id})"
        " CALL (e, key, versions, versionsLooked) { "
        + visible_passages_of_entity(
            "e", "$maxLimit", "versions", "versionsLooked", after="key.after"
        )
        + " LIMIT $maxLimit RETURN collect("
        + PASSAGE_MAP
        + ") AS passages }"
        " RETURN key, passages[..key.limit] AS passages"
    )


ENTITY_EVIDENCE_PAGES: LiteralString = _entity_evidence_pages("everywhere")
_ENTITY_EVIDENCE_PAGES = served_each(
    for_each_shape(f"{__name__}.ENTITY_EVIDENCE_PAGES", _entity_evidence_pages)
)

# The relation by its ends (their ids are unique) and its own id and type.
_RELATION: LiteralString = (
    "MATCH (:Entity {id: key.source})-[r]->(:Entity {id: key.target})"
    " WHERE r.id = key.id AND type(r) = key.type"
    " WITH DISTINCT key, coalesce(r.passageIds, []) AS passageIds"
    " UNWIND passageIds AS passageId"
)

EDGE_EVIDENCE_PAGES: LiteralString = served(
    "CALL () {"
    " UNWIND $keys AS key "
    + _RELATION
    + " MATCH (d:Document)-[:HAS_PART]->(:Chunk {id: passageId})"
    " WHERE " + document_in_scope("d") + document_versions("d", "versions") + " }"
    " UNWIND $keys AS key"
    " CALL (key, versions) { "
    + _RELATION
    + " MATCH (d:Document)-[:HAS_PART]->(c:Chunk {id: passageId})"
    " WHERE "
    + document_in_scope("d")
    + " AND "
    + passage_current_in("c", "d", "versions")
    + " AND "
    + evidence_after("d.id", "c.position", "c.id", "key.after")
    + " WITH DISTINCT c, d "
    + evidence_order("d", "c")
    + " LIMIT $maxLimit RETURN collect("
    + PASSAGE_MAP
    + ") AS passages }"
    " RETURN key, passages[..key.limit] AS passages"
)

# The version is read once, by an aggregation, before any passage or job is decided with it.
# The seek: `chunk_document_order` from the key's position on (a position holds one passage per
# version, so few rows at the key's position are read and passed over).
DOCUMENT_PASSAGE_PAGES: LiteralString = served(
    "UNWIND $keys AS key"
    " MATCH (d:Document {id: key.id})"
    " WHERE " + document_in_scope("d") + ""
    " CALL (d) { RETURN max(d.currentVersion) AS version }"
    " WITH key, d, version"
    " WHERE version >= 1 AND NOT " + version_retired("d", "version") + ""
    " CALL (key, d, version) {"
    " MATCH (c:Chunk)"
    " WHERE c.documentId = d.id AND c.version = version"
    " AND c.position >= coalesce(key.after[0], " + _LEAST_INTEGER + ")"
    " AND c.id IS NOT NULL"
    " AND (key.after IS NULL OR c.position > key.after[0] OR c.id > key.after[1])"
    " AND " + passage_current("c", "version") + " AND (d)-[:HAS_PART]->(c)"
    " WITH c ORDER BY c.documentId, c.version, c.position, c.id LIMIT $maxLimit"
    " RETURN collect(" + PASSAGE_MAP + ") AS passages }"
    " RETURN key, passages[..key.limit] AS passages"
)


def _keys(pages: Sequence[PageRequest]) -> list[dict[str, object]]:
    return [
        {
            "id": page.owner,
            "limit": page.first + 1,
            "after": list(page.after) if page.after is not None else None,
        }
        for page in pages
    ]


def _found(rows: Sequence[Any], pages: Sequence[PageRequest]) -> list[list[PassageRecord]]:
    found = {
        (row["key"]["id"], row["key"]["limit"], _after(row["key"]["after"])): [
            PassageRecord.from_map(p) for p in row["passages"]
        ]
        for row in rows
    }
    return [found.get((page.owner, page.first + 1, page.after), []) for page in pages]


def _after(value: list[Any] | None) -> EvidenceKey | DocumentKey | None:
    return tuple(value) if value is not None else None


async def entity_evidence_pages(
    graph: Graph, scope: Scope, pages: Sequence[PageRequest]
) -> list[list[PassageRecord]]:
    """Each page's first `first + 1` visible passages mentioning its entity after its key."""
    unique = list(dict.fromkeys(pages))
    found: dict[PageRequest, list[PassageRecord]] = {}
    # The look of `versions_of_mentions` is one per entity: an entity asked for twice (two
    # cursors in one request) is read in a statement of its own.
    while unique:
        batch: dict[str, PageRequest] = {}
        for page in unique:
            batch.setdefault(page.owner, page)
        chosen = list(batch.values())
        rows = await graph.read(
            _ENTITY_EVIDENCE_PAGES[scope_shape(scope)],
            scoped(scope, keys=_keys(chosen), maxLimit=max(p.first for p in chosen) + 1),
        )
        found.update(zip(chosen, _found(rows, chosen), strict=True))
        unique = [page for page in unique if page not in found]
    return [found[page] for page in pages]


@dataclass(frozen=True, slots=True)
class EdgePageRequest:
    """One page of an edge's evidence: the relation by its ends, type and id."""

    page: PageRequest
    source_id: str
    target_id: str
    type: str


async def edge_evidence_pages(
    graph: Graph, scope: Scope, requests: Sequence[EdgePageRequest]
) -> list[list[PassageRecord]]:
    """Each page's first `first + 1` visible passages among its relation's `passageIds`."""
    unique = list(dict.fromkeys(requests))
    keys = [
        {**key, "source": request.source_id, "target": request.target_id, "type": request.type}
        for key, request in zip(_keys([r.page for r in unique]), unique, strict=True)
    ]
    rows = await graph.read(
        EDGE_EVIDENCE_PAGES,
        scoped(scope, keys=keys, maxLimit=max((r.page.first for r in unique), default=0) + 1),
    )
    found = {
        (
            row["key"]["id"],
            row["key"]["source"],
            row["key"]["target"],
            row["key"]["type"],
            row["key"]["limit"],
            _after(row["key"]["after"]),
        ): [PassageRecord.from_map(p) for p in row["passages"]]
        for row in rows
    }
    return [
        found.get(
            (
                r.page.owner,
                r.source_id,
                r.target_id,
                r.type,
                r.page.first + 1,
                r.page.after,
            ),
            [],
        )
        for r in requests
    ]


async def document_passage_pages(
    graph: Graph, scope: Scope, pages: Sequence[PageRequest]
) -> list[list[PassageRecord]]:
    """Each page's first `first + 1` visible passages of its document, by position."""
    unique = list(dict.fromkeys(pages))
    rows = await graph.read(
        DOCUMENT_PASSAGE_PAGES,
        scoped(scope, keys=_keys(unique), maxLimit=max((p.first for p in unique), default=0) + 1),
    )
    found = dict(zip(unique, _found(rows, unique), strict=True))
    return [found[page] for page in pages]
