"""Batched lookups by id, each returning only what the caller may see (contract §1, §8).

Every statement honours the batch contract: `UNWIND $keys`, one row per key found, and the
caller rebuilds results in key order with `None` (or `[]`) for missing *and* hidden keys, so a
hidden node looks exactly like a missing one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import LiteralString

from contract.graph_owned import GRAPH_OWNED_LABELS
from contract.scope import Scope
from graph import mention_order
from graph.driver import Graph
from graph.mention_reads import ScopeShape, for_each_shape, scope_shape
from graph.records import DocumentRecord, EntityRecord, PassageRecord
from graph.served_statements import served, served_each
from graph.visibility import (
    document_in_scope,
    document_versions,
    document_visible,
    entity_returnable,
    passage_current_in,
    versions_of_mentions,
    visible_passages_of_entity,
)


# The map projections below are the shapes `records.*.from_map` reads.
def _document_map(current_version: LiteralString) -> LiteralString:
    return (
        "{id: d.id, workspace: d.workspace, title: d.title, uri: d.uri, sourceId: d.sourceId,"
        " currentVersion: " + current_version + "}"
    )


DOCUMENT_MAP: LiteralString = _document_map("d.currentVersion")
# Passages are projected only once found current, when their version is the document's:
# reading `d.currentVersion` again could meet a commit that landed since the check.
PASSAGE_MAP: LiteralString = (
    "{id: c.id, text: c.text, position: c.position, version: c.version, sourceId: c.sourceId,"
    " document: " + _document_map("c.version") + "}"
)
ENTITY_MAP: LiteralString = (
    "{id: e.id, name: e.name, description: e.description, sourceId: e.sourceId,"
    " labels: [label IN labels(e) WHERE NOT label IN $graphOwnedLabels]}"
)

# The versions are read first, in a subquery of their own (graph/visibility.py says why).
PASSAGES_BY_ID: LiteralString = served(
    "CALL () {"
    " UNWIND $keys AS key"
    " MATCH (d:Document)-[:HAS_PART]->(:Chunk {id: key})"
    " WHERE " + document_in_scope("d") + document_versions("d", "versions") + " }"
    " UNWIND $keys AS key"
    " MATCH (d:Document)-[:HAS_PART]->(c:Chunk {id: key})"
    " WHERE "
    + document_in_scope("d")
    + " AND "
    + passage_current_in("c", "d", "versions")
    + " RETURN c.id AS key, "
    + PASSAGE_MAP
    + " AS passage"
)

DOCUMENTS_BY_ID: LiteralString = served(
    "UNWIND $keys AS key"
    " MATCH (d:Document {id: key})"
    " WHERE " + document_visible("d") + " RETURN key, " + DOCUMENT_MAP + " AS document"
)


def _entities_by_id(shape: ScopeShape) -> LiteralString:
    return (
        "UNWIND $keys AS key"
        " MATCH (e:Entity {id: key})"
        " WHERE " + entity_returnable("e", shape) + " RETURN key, " + ENTITY_MAP + " AS entity"
    )


# Every key's evidence is decided by one read of each document's version, so the evidence of
# two entities in one batch never shows two versions of one document.
def _evidence_by_entity_id(shape: ScopeShape) -> LiteralString:
    return (
        "CALL () {"
        " UNWIND $keys AS key MATCH (e:Entity {id: key.id})"
        " WITH collect(e) AS entities"
        " CALL (entities) { "
        + versions_of_mentions("entities", "versions", "$maxLimit", shape)
        + " }"
        " RETURN versions, versionsLooked"
        " }"
        " UNWIND $keys AS key"
        " MATCH (e:Entity {id: key.id})"
        " CALL (e, versions, versionsLooked) { "
        + visible_passages_of_entity("e", "$maxLimit", "versions", "versionsLooked")
        + " RETURN collect("
        + PASSAGE_MAP
        + ") AS passages }"
        " RETURN key, passages[..key.limit] AS passages"
    )


# The statements for a scope that filters nothing; `scope_shape` picks each scope's own.
ENTITIES_BY_ID: LiteralString = _entities_by_id("everywhere")
EVIDENCE_BY_ENTITY_ID: LiteralString = _evidence_by_entity_id("everywhere")
_ENTITIES_BY_ID = served_each(for_each_shape(f"{__name__}.ENTITIES_BY_ID", _entities_by_id))
_EVIDENCE_BY_ENTITY_ID = served_each(
    for_each_shape(f"{__name__}.EVIDENCE_BY_ENTITY_ID", _evidence_by_entity_id)
)


def scoped(scope: Scope, **parameters: object) -> dict[str, object]:
    """Statement parameters with the scope's, the mention order's (graph/mention_order.py)
    and the graph-owned labels added."""
    return {
        **scope.cypher_parameters(),
        **mention_order.mention_parameters(),
        "graphOwnedLabels": list(GRAPH_OWNED_LABELS),
        **parameters,
    }


async def passages_by_id(
    graph: Graph, scope: Scope, keys: Sequence[str]
) -> list[PassageRecord | None]:
    rows = await graph.read(PASSAGES_BY_ID, scoped(scope, keys=list(dict.fromkeys(keys))))
    found = {row["key"]: PassageRecord.from_map(row["passage"]) for row in rows}
    return [found.get(key) for key in keys]


async def documents_by_id(
    graph: Graph, scope: Scope, keys: Sequence[str]
) -> list[DocumentRecord | None]:
    rows = await graph.read(DOCUMENTS_BY_ID, scoped(scope, keys=list(dict.fromkeys(keys))))
    found = {row["key"]: DocumentRecord.from_map(row["document"]) for row in rows}
    return [found.get(key) for key in keys]


async def entities_by_id(
    graph: Graph, scope: Scope, keys: Sequence[str]
) -> list[EntityRecord | None]:
    rows = await graph.read(
        _ENTITIES_BY_ID[scope_shape(scope)], scoped(scope, keys=list(dict.fromkeys(keys)))
    )
    found = {row["key"]: EntityRecord.from_map(row["entity"]) for row in rows}
    return [found.get(key) for key in keys]


async def evidence_by_entity_id(
    graph: Graph, scope: Scope, keys: Sequence[tuple[str, int]]
) -> list[list[PassageRecord]]:
    """Keys are (entity id, limit); values the visible passages, in evidence order.

    The passages come with their text from the statement that found them current: reading
    the text by id in a second statement could meet a commit in between and find none.
    """
    unique = list(dict.fromkeys(keys))
    rows = await graph.read(
        _EVIDENCE_BY_ENTITY_ID[scope_shape(scope)],
        scoped(
            scope,
            keys=[{"id": entity_id, "limit": limit} for entity_id, limit in unique],
            maxLimit=max((limit for _, limit in unique), default=0),
        ),
    )
    found = {
        (row["key"]["id"], row["key"]["limit"]): [
            PassageRecord.from_map(p) for p in row["passages"]
        ]
        for row in rows
    }
    return [found.get(key, []) for key in keys]
