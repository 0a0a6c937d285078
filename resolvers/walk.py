"""`walk`: a relationship walk from one entity, and its `Edge` and `WalkResult` types (contract §5).

The walk itself is answers/walk.py (arguments checked, UNAVAILABLE for a missing or hidden
start); this module primes the request's loaders with what the walk read (so `evidence`,
and any lookup of the same entities or passages in the operation, cost no further statement)
and maps records to types.
"""

from __future__ import annotations

from typing import Annotated

import strawberry

from answers import walk as answers_walk
from contract.arguments import (
    EVIDENCE_PAGE_SIZE,
    WALK_DEPTH,
    WALK_MAX_CANDIDATES,
    WALK_MAX_EDGES,
    WALK_MAX_NODES,
    check_range,
)
from contract.page_cursor import AFTER_DESCRIPTION, read_evidence_cursor
from contract.scope import Scope
from graph import walk as graph_walk
from graph.passage_pages import EdgePageRequest, PageRequest
from resolvers.context import Info
from resolvers.entity import Entity, evidence_key, visible_passages
from resolvers.enums import EdgeKind, WalkBound
from resolvers.passage import Passage
from resolvers.passage_page import PassageConnection, empty_page, passage_connection
from resolvers.scope_input import ScopeInput
from resolvers.selection import selects


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
    description: str | None = strawberry.field(
        description=(
            "What the source says about the relation (GraphRAG's relationship description, "
            "a bundle relation's `description`), when it gave one: a claim extraction made, "
            "like an entity's description, not evidence; read `evidence` before trusting it."
        )
    )
    weight: float | None = strawberry.field(
        description=(
            "The relation's weight as the source gave it (GraphRAG's relationship weight: "
            "how strongly extraction links the two), when it gave one."
        )
    )
    scope: strawberry.Private[Scope]

    @strawberry.field(
        description="The passages of `evidenceIds`, in the same order. Empty for a PATH."
    )
    async def evidence(self, info: Info) -> list[Passage]:
        return await visible_passages(info.context.loaders(self.scope), list(self.evidence_ids))

    @strawberry.field(
        description=(
            "The edge's visible supporting passages (from passageIds), in evidence order, a "
            "page at a time. Empty for a PATH."
        )
    )
    async def evidence_page(
        self,
        info: Info,
        first: Annotated[
            int, strawberry.argument(description=EVIDENCE_PAGE_SIZE.description)
        ] = EVIDENCE_PAGE_SIZE.default,
        after: Annotated[str | None, strawberry.argument(description=AFTER_DESCRIPTION)] = None,
    ) -> PassageConnection:
        check_range("first", first, EVIDENCE_PAGE_SIZE)
        key = read_evidence_cursor("after", after)
        if self.kind is EdgeKind.PATH:
            return empty_page()
        loaders = info.context.loaders(self.scope)
        records = await loaders.evidence_pages_by_edge.load(
            EdgePageRequest(
                PageRequest(str(self.id), first, key),
                source_id=str(self.source.id),
                target_id=str(self.target.id),
                type=self.type,
            )
        )
        return passage_connection(loaders, records, first, evidence_key)


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
                    description=edge.description,
                    weight=edge.weight,
                    scope=scope,
                )
                for edge, depth in record.edges
            ],
            truncated_by=[WalkBound(bound.value) for bound in record.truncated_by],
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
    context = info.context
    request = answers_walk.walk_request(
        context.answers,
        entity_id,
        depth,
        relation_types,
        (max_nodes, max_edges, max_candidates),
        # Carrying passage text costs the steps only when the query will show it.
        with_evidence=selects(info, ["edges", "evidence"]),
    )
    effective = context.scope(scope)
    record = await answers_walk.walk(context.answers, effective, request)
    loaders = context.loaders(effective)
    for node in record.nodes:
        loaders.entities_by_id.prime(node.id, node)
    for passage in record.passages:
        loaders.prime_passage(passage)
    return WalkResult.from_record(record, effective)
