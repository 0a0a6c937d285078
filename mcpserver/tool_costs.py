"""What an MCP tool call costs, priced by the GraphQL fields it answers as (issue 27: "the
same costs bound MCP tool calls"), from contract/query_costs.py's one table: each tool is the
selection a GraphQL client would send for the same answer, with the call's arguments.

What a tool reads beyond those fields is priced by what it reads, at the table's rate for rows
(`rows_read`): `describe_graph` counts the scope's shape (graph/graph_shape.py), reading up to
`MENTION_CAP` mentions and `RELATION_CAP` relationships, and a `walk` naming `relationTypes`
reads the same shape when a type it names finds nothing (mcpserver/answering.py), so it is
priced as if it does.

The price is charged at the front door (api/front_door/door.py `FrontDoor.answer_tool`) before
anything is read: over GRAPHQL_MAX_COST it is COST_LIMIT_EXCEEDED, over the caller's rate
RATE_LIMITED. Arguments are the agent's, unchecked: the table's rules clamp them.

    >>> tool_cost("search_entities", {"limit": 10})
    150
    >>> tool_cost("describe_graph", {})  # 2,000 for each read of 20,000 rows, 1 for the catalog
    4003
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from contract.arguments import EVIDENCE_PAGE_SIZE, SUPPORT_LIMIT
from contract.query_costs import Selected, argument_value, rows_read, selection_cost
from graph.graph_shape import MENTION_CAP, RELATION_CAP
from mcpserver.tools import (
    BETWEEN_EDGES,
    BETWEEN_NODES,
    ENTITY_RELATIONS,
    MAX_ENTITY_IDS,
    WALK_EDGES,
    WALK_NODES,
)

# The reads of the scope's shape: its capped mentions and relationships, and the catalog of
# stored relationship types read before them.
GRAPH_SHAPE_READS = rows_read(MENTION_CAP) + rows_read(RELATION_CAP) + 1


def _passages(parent: str, field: str, arguments: Mapping[str, Any]) -> Selected:
    document = Selected("Passage", "document", {}, True)
    return Selected(parent, field, arguments, True, (document,))


def _entity(parent: str, field: str) -> Selected:
    return Selected(parent, field, {}, True)


def _search_entities(arguments: Mapping[str, Any]) -> list[Selected]:
    hits = (_entity("EntityHit", "entity"), _passages("EntityHit", "evidence", {}))
    return [Selected("Query", "searchEntities", arguments, True, hits)]


def _search_passages(arguments: Mapping[str, Any]) -> list[Selected]:
    hits = (_passages("PassageHit", "passage", {}),)
    return [Selected("Query", "searchPassages", arguments, True, hits)]


def _walk(arguments: Mapping[str, Any]) -> list[Selected]:
    edge = (
        _entity("Edge", "source"),
        _entity("Edge", "target"),
        _passages("Edge", "evidence", {}),
    )
    result = (
        _entity("WalkResult", "start"),
        _entity("WalkResult", "nodes"),
        Selected("WalkResult", "edges", {}, True, edge),
    )
    return [Selected("Query", "walk", arguments, True, result)]


def _mcp_walk(arguments: Mapping[str, Any]) -> list[Selected]:
    """A walk with MCP's own default bounds (mcpserver/tools.py), which are not GraphQL's."""
    defaults = {"maxNodes": WALK_NODES.default, "maxEdges": WALK_EDGES.default}
    return _walk({**defaults, **arguments})


def _walk_between(arguments: Mapping[str, Any]) -> list[Selected]:
    """Two depth-1 walks, one from each end, with walk_between's default bounds."""
    defaults = {"maxNodes": BETWEEN_NODES.default, "maxEdges": BETWEEN_EDGES.default}
    side = {**defaults, **arguments, "depth": 1}
    return [*_walk(side), *_walk(side)]


def _get_evidence(arguments: Mapping[str, Any]) -> list[Selected]:
    """`entity { evidencePage(first: limit) { nodes { … document } } }`."""
    first = {"first": argument_value(arguments, "limit", EVIDENCE_PAGE_SIZE)}
    nodes = Selected("PassageConnection", "nodes", first, True, (_entity("Passage", "document"),))
    page = Selected("Entity", "evidencePage", {}, True, (nodes,))
    return [Selected("Query", "entity", {}, True, (page,))]


def _entity_with_evidence(arguments: Mapping[str, Any]) -> Selected:
    limit = {"limit": arguments.get("supportLimit", SUPPORT_LIMIT.default)}
    return Selected("Query", "entity", {}, True, (_passages("Entity", "evidence", limit),))


def _get_entity(arguments: Mapping[str, Any]) -> list[Selected]:
    """The entity with its evidence, and a depth-1 walk of `maxEdges` relations from it."""
    edges = argument_value(arguments, "maxEdges", ENTITY_RELATIONS)
    walk = {"depth": 1, "maxNodes": edges + 1, "maxEdges": edges}
    return [_entity_with_evidence(arguments), *_walk(walk)]


def _get_entities(arguments: Mapping[str, Any]) -> list[Selected]:
    ids = arguments.get("ids")
    count = min(len(ids), MAX_ENTITY_IDS) if isinstance(ids, list) else MAX_ENTITY_IDS
    return [_entity_with_evidence(arguments)] * max(count, 1)


def _passage(_: Mapping[str, Any]) -> list[Selected]:
    return [_passages("Query", "passage", {})]


def _labels(_: Mapping[str, Any]) -> list[Selected]:
    return [Selected("Query", "entityLabels", {}, True)]


SELECTIONS: dict[str, Callable[[Mapping[str, Any]], list[Selected]]] = {
    "search_entities": _search_entities,
    "search_passages": _search_passages,
    "walk": _mcp_walk,
    "walk_between": _walk_between,
    "get_evidence": _get_evidence,
    "get_entity": _get_entity,
    "get_entities": _get_entities,
    "get_passage": _passage,
    "entity_labels": _labels,
    "describe_graph": _labels,
}


def _shape_reads(name: str, arguments: Mapping[str, Any]) -> int:
    """What the call reads of the scope's shape (see the module docstring)."""
    if name == "describe_graph" or (name == "walk" and arguments.get("relationTypes")):
        return GRAPH_SHAPE_READS
    return 0


def tool_cost(name: str, arguments: Mapping[str, Any] | None) -> int:
    """The static cost of one call; 0 for a tool not priced here (refused as unknown)."""
    selection = SELECTIONS.get(name)
    if selection is None:
        return 0
    given = arguments if isinstance(arguments, Mapping) else {}
    return selection_cost(selection(given)) + _shape_reads(name, given)
