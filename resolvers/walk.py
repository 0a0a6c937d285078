"""`walk` (contract §5): a relationship walk from one entity, and its `Edge` and `WalkResult`.

The walk itself is `graph.walk.walk`; this module checks the arguments, raises UNAVAILABLE for
a missing or hidden start, primes the request's loaders with what the walk read (so `evidence`,
and any lookup of the same entities or passages in the operation, cost no further statement)
and maps records to types.
"""

from __future__ import annotations

from typing import Annotated

import strawberry

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
from resolvers.context import Info
from resolvers.entity import Entity, visible_passages
from resolvers.enums import EdgeKind, WalkBound
from resolvers.passage import Passage
from resolvers.scope_input import ScopeInput
from resolvers.selection import selects
from retrieval.walk_bookkeeping import WalkBounds

# One message for a missing and a hidden start, so the two cannot be told apart (contract §5).
START_UNAVAILABLE = (
    "The start entity is not available: no entity with this id has a visible passage in your scope."
)


@strawberry.type(
    description=(
        "A stored relation between two entities, met during a walk. Its `kind` says what the "
        "graph knows: an ASSERTION is stated by the passages in `evidence`; a PATH has no "
        "supporting passage at all. Relations whose passages are all hidden or superseded are "
        "never returned."
    )
)
class Edge:
    id: strawberry.ID = strawberry.field(description="The relation's id.")
    type: str = strawberry.field(description="The relation type, e.g. `WORKS_FOR`.")
    kind: EdgeKind = strawberry.field(
        description="ASSERTION when a visible passage states it, PATH when it has no passage."
    )
    depth: int = strawberry.field(
        description="The step of the walk that found the edge: 1 (around the start) or 2."
    )
    source: Entity = strawberry.field(
        description="Where the relation starts, as stored (walks follow both directions)."
    )
    target: Entity = strawberry.field(description="Where the relation ends, as stored.")
    evidence_ids: list[strawberry.ID] = strawberry.field(
        description=(
            "Ids of up to 3 visible passages stating the relation, ordered by document id, "
            "position, then id. Empty for a PATH."
        )
    )
    scope: strawberry.Private[Scope]

    @strawberry.field(
        description="The passages of `evidenceIds`, in the same order. Empty for a PATH."
    )
    async def evidence(self, info: Info) -> list[Passage]:
        return await visible_passages(info.context.loaders(self.scope), list(self.evidence_ids))


@strawberry.type(
    description=(
        "The entities and relations around a start entity, out to the requested depth. When "
        "`truncatedBy` is not empty, a bound cut the walk short: raise that bound, or narrow "
        "the walk with `relationTypes`, and walk again."
    )
)
class WalkResult:
    start: Entity = strawberry.field(description="The entity the walk started from.")
    nodes: list[Entity] = strawberry.field(
        description=(
            "Every entity of the result, the start first, then by the depth at which the walk "
            "first reached it, then by id. `maxNodes` counts the start."
        )
    )
    edges: list[Edge] = strawberry.field(
        description="The relations found, by depth, then type, source id, target id and id."
    )
    truncated_by: list[WalkBound] = strawberry.field(
        description=(
            "Every bound that cut the walk, in the order NODES, EDGES, DEPTH, CANDIDATES; "
            "empty when the walk is complete."
        )
    )

    @classmethod
    def from_record(cls, record: graph_walk.WalkRecord, scope: Scope) -> WalkResult:
        entities = {node.id: Entity.from_record(node, scope) for node in record.nodes}
        return cls(
            start=entities[record.start.id],
            nodes=list(entities.values()),
            edges=[
                Edge(
                    id=strawberry.ID(edge.id),
                    type=edge.type,
                    kind=EdgeKind(edge.kind),
                    depth=depth,
                    source=entities[edge.source_id],
                    target=entities[edge.target_id],
                    evidence_ids=[strawberry.ID(pid) for pid in edge.evidence_ids],
                    scope=scope,
                )
                for edge, depth in record.edges
            ],
            truncated_by=[WalkBound(bound.value) for bound in record.truncated_by],
        )


def _relation_types(
    values: list[str] | None, graph_owned: tuple[str, ...]
) -> tuple[str, ...] | None:
    names = check_names("relationTypes", values, MAX_RELATION_TYPES)
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


def _request(
    info: Info,
    entity_id: str,
    depth: int,
    relation_types: list[str] | None,
    bounds: tuple[int, int, int],
) -> graph_walk.WalkRequest:
    """The arguments checked (contract §5, §7), before any I/O."""
    max_nodes, max_edges, max_candidates = bounds
    graph_owned: tuple[str, ...] = info.context.services.settings.graph_owned_relation_types
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
        # Carrying passage text costs the steps only when the query will show it.
        with_evidence=selects(info, ["edges", "evidence"]),
    )


async def walk(
    info: Info,
    entity_id: Annotated[
        strawberry.ID,
        strawberry.argument(
            description="The start entity's id (canonical lowercase UUID). It must have a "
            "visible passage in scope, otherwise the error is UNAVAILABLE."
        ),
    ],
    scope: Annotated[
        ScopeInput | None,
        strawberry.argument(
            description="Narrows what the walk may read; omit for your whole grant."
        ),
    ] = None,
    depth: Annotated[
        int, strawberry.argument(description=WALK_DEPTH.description)
    ] = WALK_DEPTH.default,
    relation_types: Annotated[
        list[str] | None,
        strawberry.argument(
            description="Follow only these relation types. Omit to follow every stored type "
            "except the graph-owned ones (HAS_PART, MENTIONED_IN, IN_COMMUNITY, RESOLVED_AS, "
            "...), which are never walked and may not be named here."
        ),
    ] = None,
    max_nodes: Annotated[
        int, strawberry.argument(description=WALK_MAX_NODES.description)
    ] = WALK_MAX_NODES.default,
    max_edges: Annotated[
        int, strawberry.argument(description=WALK_MAX_EDGES.description)
    ] = WALK_MAX_EDGES.default,
    max_candidates: Annotated[
        int, strawberry.argument(description=WALK_MAX_CANDIDATES.description)
    ] = WALK_MAX_CANDIDATES.default,
) -> WalkResult:
    request = _request(
        info, entity_id, depth, relation_types, (max_nodes, max_edges, max_candidates)
    )
    effective = info.context.scope(scope)
    record = await graph_walk.walk(info.context.graph, effective, request)
    if record is None:
        raise Unavailable(START_UNAVAILABLE)
    loaders = info.context.loaders(effective)
    for node in record.nodes:
        loaders.entities_by_id.prime(node.id, node)
    for passage in record.passages:
        loaders.prime_passage(passage)
    return WalkResult.from_record(record, effective)
