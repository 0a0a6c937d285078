"""`Entity`: a node extraction made, returned only when an in-scope passage mentions it."""

from __future__ import annotations

from typing import Annotated

import strawberry

from contract.arguments import EVIDENCE_LIMIT, check_range
from contract.scope import Scope
from graph.records import EntityRecord
from loaders import Loaders
from resolvers.context import Info
from resolvers.passage import Passage


async def visible_passages(loaders: Loaders, ids: list[str]) -> list[Passage]:
    """Passages for evidence ids, batched with every other passage of the request."""
    records = await loaders.passages_by_id.load_many(ids)
    return [Passage.from_record(record) for record in records if record is not None]


@strawberry.federation.type(
    keys=["id"],
    description=(
        "An entity of the knowledge graph: a claim that extraction made. Returned only when "
        "a passage in your scope mentions it; read its `evidence` before trusting it."
    ),
)
class Entity:
    id: strawberry.ID = strawberry.field(description="Canonical lowercase UUID.")
    name: str = strawberry.field(description="The entity's name.")
    labels: list[str] = strawberry.field(
        description="Its entity labels (schema labels such as `Person`; never `Entity`)."
    )
    description: str | None = strawberry.field(
        description="A description, when extraction gave one."
    )
    source_id: str | None = strawberry.field(
        description=(
            "Its id in the file it was loaded from (a GraphRAG table's `id`, a LangChain "
            "node's `id`), whose ids the loader made per workspace; null "
            "for bundle lines, which keep their own ids."
        )
    )
    scope: strawberry.Private[Scope]

    @classmethod
    def from_record(cls, record: EntityRecord, scope: Scope) -> Entity:
        return cls(
            id=strawberry.ID(record.id),
            name=record.name,
            labels=list(record.labels),
            description=record.description,
            source_id=record.source_id,
            scope=scope,
        )

    @strawberry.field(
        description=(
            "Up to `limit` visible passages that mention the entity, ordered by document id "
            "then position. Empty when the entity is UNSUPPORTED."
        )
    )
    async def evidence(
        self,
        info: Info,
        limit: Annotated[
            int, strawberry.argument(description=EVIDENCE_LIMIT.description)
        ] = EVIDENCE_LIMIT.default,
    ) -> list[Passage]:
        check_range("limit", limit, EVIDENCE_LIMIT)
        loaders = info.context.loaders(self.scope)
        passages = await loaders.evidence_by_entity_id.load((str(self.id), limit))
        for passage in passages:
            loaders.prime_passage(passage)
        return [Passage.from_record(passage) for passage in passages]

    @classmethod
    async def resolve_reference(cls, info: Info, id: strawberry.ID) -> Entity | None:
        """Federation: the entity, if an in-scope passage mentions it; else null."""
        scope = info.context.scope(None)
        record = await info.context.loaders(scope).entities_by_id.load(str(id))
        return cls.from_record(record, scope) if record else None
