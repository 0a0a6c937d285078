"""The relationship walk (seed "relationship walk" steps 1–4, contract §5): arguments checked,
then `graph.walk.walk`; a missing or hidden start is UNAVAILABLE."""

from __future__ import annotations

from collections.abc import Sequence

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
from retrieval.walk_bookkeeping import WalkBounds

# One message for a missing and a hidden start, so the two cannot be told apart (contract §5).
START_UNAVAILABLE = (
    "The start entity is not available: no entity with this id has a visible passage in your scope."
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
