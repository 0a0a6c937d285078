"""`Document`: one source document, of which passages are pieces."""

from __future__ import annotations

import strawberry

from graph.records import DocumentRecord
from resolvers.context import Info


@strawberry.federation.type(
    keys=["id"], description="A source document. Passages are pieces of its current version."
)
class Document:
    id: strawberry.ID = strawberry.field(description="Canonical lowercase UUID.")
    workspace: str = strawberry.field(description="The workspace the document belongs to.")
    title: str | None = strawberry.field(description="Title, when the source gave one.")
    uri: str | None = strawberry.field(description="Where the source lives, when known.")
    current_version: int = strawberry.field(
        description="The committed version whose passages are current."
    )
    source_id: str | None = strawberry.field(
        description=(
            "Its id in the file it was loaded from (a GraphRAG table's `id`, a LangChain "
            "record's `metadata.source`), whose ids the loader made per workspace; null "
            "for bundle lines, which keep their own ids."
        )
    )

    @classmethod
    def from_record(cls, record: DocumentRecord) -> Document:
        return cls(
            id=strawberry.ID(record.id),
            workspace=record.workspace,
            title=record.title,
            uri=record.uri,
            current_version=record.current_version,
            source_id=record.source_id,
        )

    @classmethod
    async def resolve_reference(cls, info: Info, id: strawberry.ID) -> Document | None:
        """Federation: the document, if it is in the caller's scope; else null."""
        loaders = info.context.grant_loaders()
        record = await loaders.documents_by_id.load(str(id))
        return cls.from_record(record) if record else None
