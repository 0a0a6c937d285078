"""`Passage`: one piece of one version of one document, the evidence behind answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import strawberry

from contract.arguments import MENTIONS_LIMIT, check_range
from contract.scope import Scope
from graph.records import PassageRecord
from resolvers.context import Info
from resolvers.document import Document

if TYPE_CHECKING:
    from resolvers.entity import Entity


@strawberry.federation.type(
    keys=["id"],
    description=(
        "A passage of a document: the source text that supports entities and relations. "
        "Only visible passages are ever returned: in your scope, of the document's current "
        "version, and not being written by an unfinished ingestion job."
    ),
)
class Passage:
    id: strawberry.ID = strawberry.field(description="Canonical lowercase UUID.")
    text: str = strawberry.field(description="The passage's text.")
    position: int = strawberry.field(description="0-based position within its document version.")
    version: int = strawberry.field(description="The document version the passage belongs to.")
    document: Document = strawberry.field(description="The document this passage is part of.")
    source_id: str | None = strawberry.field(
        description=(
            "Its id in the file it was loaded from (a GraphRAG table's `id`, a LangChain "
            "record's `source.id`), whose ids the loader made per workspace; null "
            "for bundle lines, which keep their own ids."
        )
    )
    scope: strawberry.Private[Scope]  # the scope it was found in, which its fields keep

    @classmethod
    def from_record(cls, record: PassageRecord, scope: Scope) -> Passage:
        return cls(
            id=strawberry.ID(record.id),
            text=record.text,
            position=record.position,
            version=record.version,
            document=Document.from_record(record.document, scope),
            source_id=record.source_id,
            scope=scope,
        )

    @strawberry.field(
        description=(
            "Entities this passage mentions that are returnable in the caller's scope, "
            "ordered by name then id, at most `limit` (0–50, default 20)."
        )
    )
    async def mentions(
        self,
        info: Info,
        limit: Annotated[
            int, strawberry.argument(description=MENTIONS_LIMIT.description)
        ] = MENTIONS_LIMIT.default,
    ) -> list[Annotated[Entity, strawberry.lazy("resolvers.entity")]]:
        check_range("limit", limit, MENTIONS_LIMIT)
        if limit == 0:
            return []
        # entity.py imports this module.
        from resolvers.entity import Entity

        loaders = info.context.loaders(self.scope)
        records = await loaders.entities_by_passage_id.load((str(self.id), limit))
        for record in records:
            loaders.entities_by_id.prime(record.id, record)
        return [Entity.from_record(record, self.scope) for record in records]

    @classmethod
    async def resolve_reference(cls, info: Info, id: strawberry.ID) -> Passage | None:
        """Federation: the passage, if it is visible in the caller's scope; else null."""
        loaders = info.context.grant_loaders()
        record = await loaders.passages_by_id.load(str(id))
        return cls.from_record(record, loaders.scope) if record else None
