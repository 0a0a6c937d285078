"""Reading the stored entity vectors of a label, page by page, to copy them into an external
vector store (`evidencegraph vectors sync`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import LiteralString

from graph.driver import Graph

ENTITY_VECTORS_PAGE: LiteralString = (
    "MATCH (e:Entity:$($label)) WHERE e.embedding IS NOT NULL AND e.id > $after"
    " RETURN e.id AS id, e.embedding AS embedding ORDER BY e.id LIMIT $page"
)


async def entity_vectors(
    graph: Graph, label: str, page: int = 2000
) -> AsyncIterator[tuple[str, list[float]]]:
    """Every (entity id, embedding) of `label`, in id order, `page` rows per read."""
    after = ""
    while True:
        rows = await graph.read(ENTITY_VECTORS_PAGE, {"label": label, "after": after, "page": page})
        for row in rows:
            yield row["id"], list(row["embedding"])
        if len(rows) < page:
            return
        after = rows[-1]["id"]
