"""`Entity`: a node extraction made, returned only when an in-scope passage mentions it."""

from __future__ import annotations

from typing import Annotated

import strawberry

from contract.arguments import EVIDENCE_LIMIT, EVIDENCE_PAGE_SIZE, check_range
from contract.page_cursor import AFTER_DESCRIPTION, evidence_cursor, read_evidence_cursor
from contract.scope import Scope
from graph.passage_pages import PageRequest
from graph.records import EntityRecord, PassageRecord
from loaders import Loaders
from resolvers.context import Info
from resolvers.passage import Passage
from resolvers.passage_page import PassageConnection, passage_connection


async def visible_passages(loaders: Loaders, ids: list[str]) -> list[Passage]:
    """Passages for evidence ids, batched with every other passage of the request."""
    records = await loaders.passages_by_id.load_many(ids)
    return [Passage.from_record(record, loaders.scope) for record in records if record is not None]


def evidence_key(record: PassageRecord) -> str:
    """The cursor after `record` in evidence order (document id, position, passage id)."""
    return evidence_cursor((record.document.id, record.position, record.id))


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
        return [Passage.from_record(passage, self.scope) for passage in passages]

    @strawberry.field(
        description=(
            "Visible passages mentioning the entity, in evidence order (document id, "
            "position, passage id), a page at a time."
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
        loaders = info.context.loaders(self.scope)
        records = await loaders.evidence_pages_by_entity_id.load(
            PageRequest(str(self.id), first, key)
        )
        return passage_connection(loaders, records, first, evidence_key)

    @classmethod
    async def resolve_reference(cls, info: Info, id: strawberry.ID) -> Entity | None:
        """Federation: the entity, if an in-scope passage mentions it; else null."""
        scope = info.context.scope(None)
        record = await info.context.loaders(scope).entities_by_id.load(str(id))
        return cls.from_record(record, scope) if record else None
