"""The documents a graph serves, and its workspaces: what `evidencegraph documents` lists, and
the workspaces `grantedWorkspaces` offers a caller granted every one (`AUTH_MODE=none`).

A document is listed when a reader could see it (contract §1, `document_visible`: a committed
current version that is not a deletion), with that version's passages counted the way a reader
finds them (`passage_current`). `list_documents` is for the operator at the terminal, so it
reads every workspace unless one is named; `readable` is what one caller's scope holds, for MCP
(`describe_graph`, and the names a refused `scope.workspaces` is told about).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from contract.scope import Scope
from graph.driver import Graph
from graph.served_statements import served
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
WORKSPACES_WITH_DOCUMENTS: LiteralString = served(
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


# What a caller may read, for MCP's `describe_graph` and its scope check: each workspace with
# how many visible documents it holds, and the first `$most` documents (workspace, then id)
# with their current passages counted; only those are counted, so a scope of many documents
# costs a scan of them and `$most` passage counts.
READABLE: LiteralString = served(
    "CALL () {"
    " MATCH (d:Document) WHERE " + document_visible("d") + ""
    " WITH d.workspace AS workspace, count(*) AS documents ORDER BY workspace"
    " RETURN collect({workspace: workspace, documents: documents}) AS workspaces"
    " }"
    " CALL () {"
    " MATCH (d:Document) WHERE " + document_visible("d") + ""
    " WITH d ORDER BY d.workspace, d.id LIMIT $most"
    " CALL (d) {"
    " OPTIONAL MATCH (d)-[:HAS_PART]->(c:Chunk)"
    " WHERE " + passage_current("c", "d.currentVersion") + " RETURN count(c) AS passages }"
    " RETURN collect({id: d.id, workspace: d.workspace, title: d.title, passages: passages})"
    " AS documents"
    " }"
    " RETURN workspaces, documents"
)


@dataclass(frozen=True, slots=True)
class ReadableWorkspace:
    name: str
    documents: int  # visible documents


@dataclass(frozen=True, slots=True)
class ReadableDocument:
    id: str
    workspace: str
    title: str | None
    passages: int  # of its current version


async def readable(
    graph: Graph, scope: Scope, most: int
) -> tuple[list[ReadableWorkspace], list[ReadableDocument]]:
    """The workspaces holding a document visible in `scope`, with their counts, and the first
    `most` of those documents."""
    parameters = {**scope.cypher_parameters(), "most": most}
    row = (await graph.read(READABLE, parameters))[0]
    return (
        [ReadableWorkspace(w["workspace"], int(w["documents"])) for w in row["workspaces"]],
        [
            ReadableDocument(d["id"], d["workspace"], d["title"], int(d["passages"]))
            for d in row["documents"]
        ],
    )
