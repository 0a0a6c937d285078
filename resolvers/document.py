"""`Document`: one source document, of which passages are pieces."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import strawberry

from contract.arguments import DOCUMENT_PAGE_SIZE, check_range
from contract.page_cursor import AFTER_DESCRIPTION, document_cursor, read_document_cursor
from contract.scope import Scope
from graph.passage_pages import PageRequest
from graph.records import DocumentRecord, PassageRecord
from resolvers.context import Info

if TYPE_CHECKING:
    from resolvers.passage_page import PassageConnection


def _document_key(record: PassageRecord) -> str:
    return document_cursor((record.position, record.id))


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
    scope: strawberry.Private[Scope]  # the scope it was reached in, which `passages` keeps

    @classmethod
    def from_record(cls, record: DocumentRecord, scope: Scope) -> Document:
        return cls(
            id=strawberry.ID(record.id),
            workspace=record.workspace,
            title=record.title,
            uri=record.uri,
            current_version=record.current_version,
            source_id=record.source_id,
            scope=scope,
        )

    @strawberry.field(
        description=(
            "The passages of the document's current version that are visible to the caller, "
            "by position, a page at a time."
        )
    )
    async def passages(
        self,
        info: Info,
        first: Annotated[
            int, strawberry.argument(description=DOCUMENT_PAGE_SIZE.description)
        ] = DOCUMENT_PAGE_SIZE.default,
        after: Annotated[
            str | None,
            strawberry.argument(description=AFTER_DESCRIPTION),
        ] = None,
    ) -> Annotated[PassageConnection, strawberry.lazy("resolvers.passage_page")]:
        # passage_page.py builds passages, whose module imports this one.
        from resolvers.passage_page import passage_connection

        check_range("first", first, DOCUMENT_PAGE_SIZE)
        key = read_document_cursor("after", after)
        loaders = info.context.loaders(self.scope)
        records = await loaders.passage_pages_by_document_id.load(
            PageRequest(str(self.id), first, key)
        )
        return passage_connection(loaders, records, first, _document_key)

    @classmethod
    async def resolve_reference(cls, info: Info, id: strawberry.ID) -> Document | None:
        """Federation: the document, if it is in the caller's scope; else null."""
        loaders = info.context.grant_loaders()
        record = await loaders.documents_by_id.load(str(id))
        return cls.from_record(record, loaders.scope) if record else None
