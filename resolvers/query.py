"""The `Query` root (SPEC §6): each field a short delegate."""

from __future__ import annotations

from typing import Annotated

import strawberry

from contract.arguments import check_id
from resolvers.context import Info
from resolvers.entity import Entity
from resolvers.entity_label import EntityLabel, entity_labels
from resolvers.passage import Passage
from resolvers.scope_input import ScopeInput
from resolvers.walk import WalkResult, walk

ScopeArgument = Annotated[
    ScopeInput | None,
    strawberry.argument(description="Narrows what the query may read; omit for your whole grant."),
]


@strawberry.type(description="Entity search, passage search and relationship walks, with evidence.")
class Query:
    @strawberry.field(
        description=(
            "The entity with this id, or null unless a passage in scope mentions it "
            "(a hidden entity looks exactly like a missing one)."
        )
    )
    async def entity(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="Canonical lowercase UUID.")],
        scope: ScopeArgument = None,
    ) -> Entity | None:
        check_id("id", id)
        effective = info.context.scope(scope)
        record = await info.context.loaders(effective).entities_by_id.load(id)
        return Entity.from_record(record, effective) if record else None

    @strawberry.field(
        description=(
            "The passage with this id, or null unless it is visible in scope "
            "(a hidden passage looks exactly like a missing one)."
        )
    )
    async def passage(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="Canonical lowercase UUID.")],
        scope: ScopeArgument = None,
    ) -> Passage | None:
        check_id("id", id)
        effective = info.context.scope(scope)
        record = await info.context.loaders(effective).passages_by_id.load(id)
        return Passage.from_record(record) if record else None

    @strawberry.field(
        description="Every entity label (a label with a vector index) and its two index states."
    )
    async def entity_labels(self, info: Info) -> list[EntityLabel]:
        return await entity_labels(info)

    walk: WalkResult = strawberry.field(
        resolver=walk,
        description=(
            "Walks the stored relations around one entity, out to depth 1 or 2, in both "
            "directions. Each edge is an ASSERTION (a visible passage states it; see its "
            "evidence) or a PATH (no supporting passage). Bounds cap the answer, and "
            "`truncatedBy` names every bound that cut it. Errors: MALFORMED for an invalid "
            "argument, UNAVAILABLE when the start is missing or has no visible passage in scope."
        ),
    )
