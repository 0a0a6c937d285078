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

from collections.abc import Mapping, Sequence
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


# What a page statement returns for each key: the page's passages, or (for a count) how many
# there are, up to the page's size: the same read, only its projection differs.
_PAGE: LiteralString = "collect(" + PASSAGE_MAP + ") AS passages }"
_COUNT: LiteralString = "count(*) AS passages }"


def _entity_evidence_pages(shape: ScopeShape, returned: LiteralString = _PAGE) -> LiteralString:
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
        + " LIMIT $maxLimit RETURN "
        + returned
        + " RETURN key, "
        + ("passages" if returned == _COUNT else "passages[..key.limit]")
        + " AS passages"
    )


def _entity_evidence_counts(shape: ScopeShape) -> LiteralString:
    return _entity_evidence_pages(shape, _COUNT)


ENTITY_EVIDENCE_PAGES: LiteralString = _entity_evidence_pages("everywhere")
_ENTITY_EVIDENCE_PAGES = served_each(
    for_each_shape(f"{__name__}.ENTITY_EVIDENCE_PAGES", _entity_evidence_pages)
)
ENTITY_EVIDENCE_COUNTS: LiteralString = _entity_evidence_counts("everywhere")
_ENTITY_EVIDENCE_COUNTS = served_each(
    for_each_shape(f"{__name__}.ENTITY_EVIDENCE_COUNTS", _entity_evidence_counts)
)

# The relation by its ends (their ids are unique) and its own id and type.
_RELATION: LiteralString = (
    "MATCH (:Entity {id: key.source})-[r]->(:Entity {id: key.target})"
    " WHERE r.id = key.id AND type(r) = key.type"
    " WITH DISTINCT key, coalesce(r.passageIds, []) AS passageIds"
    " UNWIND passageIds AS passageId"
)


def _edge_evidence_pages(returned: LiteralString) -> LiteralString:
    return (
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
        + " LIMIT $maxLimit RETURN "
        + returned
        + " RETURN key, "
        + ("passages" if returned == _COUNT else "passages[..key.limit]")
        + " AS passages"
    )


EDGE_EVIDENCE_PAGES: LiteralString = served(_edge_evidence_pages(_PAGE))
EDGE_EVIDENCE_COUNTS: LiteralString = served(_edge_evidence_pages(_COUNT))

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


def _row_key(row: Any) -> tuple[Any, ...]:
    """A row's key as `_page_key` makes it from the request."""
    key = row["key"]
    return (key["id"], key["limit"], _after(key["after"]))


def _page_key(page: PageRequest) -> tuple[Any, ...]:
    return (page.owner, page.first + 1, page.after)


def _passages(row: Any) -> list[PassageRecord]:
    return [PassageRecord.from_map(p) for p in row["passages"]]


def _found(rows: Sequence[Any], pages: Sequence[PageRequest]) -> list[list[PassageRecord]]:
    found = {_row_key(row): _passages(row) for row in rows}
    return [found.get(_page_key(page), []) for page in pages]


def _after(value: list[Any] | None) -> EvidenceKey | DocumentKey | None:
    return tuple(value) if value is not None else None


async def _by_entity(
    graph: Graph,
    scope: Scope,
    statements: Mapping[ScopeShape, str],
    pages: Sequence[PageRequest],
) -> dict[PageRequest, Any]:
    """Each page's row of an entity statement (its `passages`), by page."""
    unique = list(dict.fromkeys(pages))
    found: dict[PageRequest, Any] = {}
    # The look of `versions_of_mentions` is one per entity: an entity asked for twice (two
    # cursors in one request) is read in a statement of its own.
    while unique:
        batch: dict[str, PageRequest] = {}
        for page in unique:
            batch.setdefault(page.owner, page)
        chosen = list(batch.values())
        rows = await graph.read(
            statements[scope_shape(scope)],
            scoped(scope, keys=_keys(chosen), maxLimit=max(p.first for p in chosen) + 1),
        )
        by_key = {_row_key(row): row for row in rows}
        found.update({page: by_key.get(_page_key(page)) for page in chosen})
        unique = [page for page in unique if page not in found]
    return found


async def entity_evidence_pages(
    graph: Graph, scope: Scope, pages: Sequence[PageRequest]
) -> list[list[PassageRecord]]:
    """Each page's first `first + 1` visible passages mentioning its entity after its key."""
    found = await _by_entity(graph, scope, _ENTITY_EVIDENCE_PAGES, pages)
    return [[] if found[page] is None else _passages(found[page]) for page in pages]


@dataclass(frozen=True, slots=True)
class EdgePageRequest:
    """One page of an edge's evidence: the relation by its ends, type and id."""

    page: PageRequest
    source_id: str
    target_id: str
    type: str


def _edge_key(key: Any) -> tuple[Any, ...]:
    return (
        key["id"],
        key["source"],
        key["target"],
        key["type"],
        key["limit"],
        _after(key["after"]),
    )


def _edge_request_key(request: EdgePageRequest) -> tuple[Any, ...]:
    page = request.page
    return (
        page.owner,
        request.source_id,
        request.target_id,
        request.type,
        page.first + 1,
        page.after,
    )


async def _by_edge(
    graph: Graph, scope: Scope, statement: LiteralString, requests: Sequence[EdgePageRequest]
) -> dict[tuple[Any, ...], Any]:
    """Each request's row of an edge statement (its `passages`), by `_edge_request_key`."""
    unique = list(dict.fromkeys(requests))
    keys = [
        {**key, "source": request.source_id, "target": request.target_id, "type": request.type}
        for key, request in zip(_keys([r.page for r in unique]), unique, strict=True)
    ]
    rows = await graph.read(
        statement,
        scoped(scope, keys=keys, maxLimit=max((r.page.first for r in unique), default=0) + 1),
    )
    return {_edge_key(row["key"]): row for row in rows}


async def edge_evidence_pages(
    graph: Graph, scope: Scope, requests: Sequence[EdgePageRequest]
) -> list[list[PassageRecord]]:
    """Each page's first `first + 1` visible passages among its relation's `passageIds`."""
    found = await _by_edge(graph, scope, EDGE_EVIDENCE_PAGES, requests)
    rows = [found.get(_edge_request_key(request)) for request in requests]
    return [[] if row is None else _passages(row) for row in rows]


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


# Evidence totals (MCP says "3 of 14 passages"): the pages' reads, counted instead of sent,
# up to a cap, so a hub's count costs what a page of that size costs.


async def entity_evidence_counts(
    graph: Graph, scope: Scope, pages: Sequence[PageRequest]
) -> list[int]:
    """For each page, how many visible passages mention its entity after its key, counted up to
    `first + 1` (a count above `first` says "more than `first`")."""
    found = await _by_entity(graph, scope, _ENTITY_EVIDENCE_COUNTS, pages)
    counts = [0 if found[page] is None else int(found[page]["passages"]) for page in pages]
    return [min(count, page.first + 1) for count, page in zip(counts, pages, strict=True)]


async def edge_evidence_counts(
    graph: Graph, scope: Scope, requests: Sequence[EdgePageRequest]
) -> list[int]:
    """For each request, how many of its relation's `passageIds` are visible after its key,
    counted up to `first + 1`."""
    found = await _by_edge(graph, scope, EDGE_EVIDENCE_COUNTS, requests)
    rows = [found.get(_edge_request_key(request)) for request in requests]
    counts = [0 if row is None else int(row["passages"]) for row in rows]
    return [min(count, r.page.first + 1) for count, r in zip(counts, requests, strict=True)]
