"""The entities a passage mentions (`Passage.mentions`): those returnable in the caller's scope
(graph/visibility.py `entity_returnable`), ordered by name then id, at most a limit.

The passage itself was shown to the caller, so it is visible; each entity is still decided by
the rule, as every read of an entity is. A passage mentions few entities; one that mentions
many costs one read of each mention's entity name, and the rule is decided for the entities
in name order only until the limit is reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import LiteralString

from contract.scope import Scope
from graph.driver import Graph
from graph.lookups import ENTITY_MAP, scoped
from graph.mention_reads import ScopeShape, for_each_shape, scope_shape
from graph.records import EntityRecord
from graph.served_statements import served_each
from graph.visibility import entity_returnable


def _entities_by_passage_id(shape: ScopeShape) -> LiteralString:
    return (
        "UNWIND $keys AS key"
        " MATCH (c:Chunk {id: key.id})"
        " CALL (c) {"
        " MATCH (e:Entity)-[:MENTIONED_IN]->(c)"
        " WITH DISTINCT e ORDER BY e.name, e.id"
        " WHERE " + entity_returnable("e", shape) + " LIMIT $maxLimit"
        " RETURN collect(" + ENTITY_MAP + ") AS entities }"
        " RETURN key, entities[..key.limit] AS entities"
    )


ENTITIES_BY_PASSAGE_ID: LiteralString = _entities_by_passage_id("everywhere")
_ENTITIES_BY_PASSAGE_ID = served_each(
    for_each_shape(f"{__name__}.ENTITIES_BY_PASSAGE_ID", _entities_by_passage_id)
)


async def entities_by_passage_id(
    graph: Graph, scope: Scope, keys: Sequence[tuple[str, int]]
) -> list[list[EntityRecord]]:
    """Keys are (passage id, limit); values the returnable entities it mentions, by name."""
    unique = list(dict.fromkeys(keys))
    rows = await graph.read(
        _ENTITIES_BY_PASSAGE_ID[scope_shape(scope)],
        scoped(
            scope,
            keys=[{"id": passage_id, "limit": limit} for passage_id, limit in unique],
            maxLimit=max((limit for _, limit in unique), default=0),
        ),
    )
    found = {
        (row["key"]["id"], row["key"]["limit"]): [
            EntityRecord.from_map(entity) for entity in row["entities"]
        ]
        for row in rows
    }
    return [found.get(key, []) for key in keys]
