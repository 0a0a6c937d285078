"""The documents a graph serves, and its workspaces: what `evidencegraph documents` lists, and
the workspaces `grantedWorkspaces` offers a caller granted every one (`AUTH_MODE=none`).

A document is listed when a reader could see it (contract §1, `document_visible`: a committed
current version that is not a deletion), with that version's passages counted the way a reader
finds them (`passage_current`). The list is for the operator at the terminal, so it reads every
workspace unless one is named; a request never reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from contract.scope import Scope
from graph.driver import Graph
from graph.visibility import document_visible, passage_current

# One row per visible document, in workspace then id order; its current passages counted
# inside a subquery, so a document of many passages is one row all the same.
DOCUMENTS_IN_SCOPE: LiteralString = (
    "MATCH (d:Document)"
    " WHERE " + document_visible("d") + " CALL (d) {"
    " OPTIONAL MATCH (d)-[:HAS_PART]->(c:Chunk)"
    " WHERE " + passage_current("c", "d.currentVersion") + " RETURN count(c) AS passages }"
    " RETURN d.id AS id, d.workspace AS workspace, d.title AS title,"
    " d.currentVersion AS version, passages"
    " ORDER BY workspace, id"
)


# The workspaces of the documents a reader could see, each once, sorted.
WORKSPACES_WITH_DOCUMENTS: LiteralString = (
    "MATCH (d:Document) WHERE " + document_visible("d") + " AND d.workspace IS NOT NULL"
    " RETURN DISTINCT toString(d.workspace) AS workspace ORDER BY workspace"
)


@dataclass(frozen=True, slots=True)
class ListedDocument:
    id: str
    workspace: str
    title: str | None
    version: int  # its current version
    passages: int  # of its current version


async def list_documents(graph: Graph, workspace: str | None = None) -> list[ListedDocument]:
    """Every document a reader could see, of `workspace` alone when one is named."""
    scope = Scope(workspaces=None if workspace is None else (workspace,))
    rows = await graph.read(DOCUMENTS_IN_SCOPE, scope.cypher_parameters())
    return [
        ListedDocument(
            id=row["id"],
            workspace=row["workspace"],
            title=row["title"],
            version=int(row["version"]),
            passages=int(row["passages"]),
        )
        for row in rows
    ]


async def workspaces_with_documents(graph: Graph) -> list[str]:
    """Every workspace that holds a document a reader could see, sorted."""
    rows = await graph.read(WORKSPACES_WITH_DOCUMENTS, Scope(workspaces=None).cypher_parameters())
    return [row["workspace"] for row in rows]
