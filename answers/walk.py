"""The relationship walk (seed "relationship walk" steps 1–4, contract §5): arguments checked,
then `graph.walk.walk`; a missing or hidden start is UNAVAILABLE.

`walk_between` answers "how are these two connected?" (issue 39, point 4) with the same walk:
a depth-1 walk from each end, under the caller's bounds and relation types, and the edges on a
path of at most two steps picked out of them (retrieval/walk_connections.py), so no second
implementation of the walk's rules exists."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from answers.context import AnswerContext
from contract.arguments import (
    MAX_RELATION_TYPES,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    WALK_MAX_EDGES,
    WALK_MAX_NODES,
    check_id,
    check_names,
    check_range,
)
from contract.errors import Malformed, Unavailable
from contract.scope import Scope
from graph import walk as graph_walk
from graph.records import EntityRecord
from retrieval.walk_bookkeeping import Bound, WalkBounds
from retrieval.walk_connections import connections, far_end

# One message for a missing and a hidden start, so the two cannot be told apart (contract §5).
START_UNAVAILABLE = (
    "The start entity is not available: no entity with this id has a visible passage in your scope."
)
OTHER_UNAVAILABLE = (
    "The other entity is not available: no entity with this id has a visible passage in your scope."
)


def _relation_types(
    values: Sequence[str] | None, graph_owned: tuple[str, ...]
) -> tuple[str, ...] | None:
    names = check_names(
        "relationTypes", list(values) if values is not None else None, MAX_RELATION_TYPES
    )
    if names is None:
        return None
    if not names:
        raise Malformed(
            "relationTypes",
            "it must name at least one relation type; omit it to follow every type",
        )
    owned = [name for name in names if name in graph_owned]
    if owned:
        raise Malformed(
            "relationTypes",
            ", ".join(f"`{name}`" for name in owned)
            + (" is" if len(owned) == 1 else " are")
            + " graph-owned and never walked; the graph-owned types are "
            + ", ".join(graph_owned),
        )
    return names


def walk_request(
    context: AnswerContext,
    entity_id: str,
    depth: int,
    relation_types: Sequence[str] | None,
    bounds: tuple[int, int, int],
    *,
    with_evidence: bool,
) -> graph_walk.WalkRequest:
    """The arguments checked (contract §5, §7), before any I/O. `bounds` is (maxNodes, maxEdges,
    maxCandidates); `with_evidence` carries the edges' passage text, for a caller that shows it."""
    max_nodes, max_edges, max_candidates = bounds
    graph_owned = context.settings.graph_owned_relation_types
    return graph_walk.WalkRequest(
        start_id=check_id("entityId", entity_id),
        depth=check_range("depth", depth, WALK_DEPTH),
        bounds=WalkBounds(
            max_nodes=check_range("maxNodes", max_nodes, WALK_MAX_NODES),
            max_edges=check_range("maxEdges", max_edges, WALK_MAX_EDGES),
            max_candidates=check_range("maxCandidates", max_candidates, WALK_MAX_CANDIDATES),
        ),
        relation_types=_relation_types(relation_types, graph_owned),
        graph_owned_types=graph_owned,
        with_evidence=with_evidence,
    )


async def walk(
    context: AnswerContext, effective: Scope, request: graph_walk.WalkRequest
) -> graph_walk.WalkRecord:
    record = await graph_walk.walk(context.graph, effective, request)
    if record is None:
        raise Unavailable(START_UNAVAILABLE)
    return record


@dataclass(frozen=True, slots=True)
class ConnectionRecord:
    """The edges between two entities, and what may be missing from them."""

    one: EntityRecord
    other: EntityRecord
    via: list[EntityRecord]  # the entities a two-step path passes through, by id
    edges: list[tuple[graph_walk.WalkEdgeRecord, int]]  # (edge, its step from `one`: 1 or 2)
    # The bounds that cut each end's walk (NODES, EDGES, CANDIDATES; DEPTH is not asked): a
    # connection through an edge a bound left out is missing.
    one_cut: list[Bound]
    other_cut: list[Bound]


async def walk_between(
    context: AnswerContext, effective: Scope, request: graph_walk.WalkRequest, other_id: str
) -> ConnectionRecord:
    """The edges on a path of at most `request.depth` steps between `request.start_id` and
    `other_id`: a depth-1 walk from each (run together), under `request`'s bounds and types.
    Either end missing or hidden is UNAVAILABLE, each with its own message."""
    other_id = check_id("otherEntityId", other_id)
    side = dataclasses.replace(request, depth=1, probe_depth=False)
    around_one, around_other = await asyncio.gather(
        graph_walk.walk(context.graph, effective, side),
        graph_walk.walk(context.graph, effective, dataclasses.replace(side, start_id=other_id)),
    )
    if around_one is None:
        raise Unavailable(START_UNAVAILABLE)
    if around_other is None:
        raise Unavailable(OTHER_UNAVAILABLE)
    one, other = around_one.start, around_other.start
    edges = connections(
        one.id,
        other.id,
        [edge for edge, _ in around_one.edges],
        [edge for edge, _ in around_other.edges],
        request.depth,
    )
    known = {node.id: node for node in [*around_one.nodes, *around_other.nodes]}
    via = sorted({far_end(edge, one.id) for edge, step in edges if step == 1} - {one.id, other.id})
    return ConnectionRecord(
        one=one,
        other=other,
        via=[known[node] for node in via],
        edges=edges,
        one_cut=[bound for bound in around_one.truncated_by if bound is not Bound.DEPTH],
        other_cut=[bound for bound in around_other.truncated_by if bound is not Bound.DEPTH],
    )
