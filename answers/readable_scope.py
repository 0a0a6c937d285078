"""What a caller may read, named (issue 39, point 3: "scope that can be found"): the workspaces
of its grant that hold a visible document, each with how many, and the first documents with
their passages counted (graph/document_list.py `readable`). MCP's `describe_graph` shows them,
and MCP names them when a call's `scope.workspaces` names one the caller cannot read."""

from __future__ import annotations

from answers.context import AnswerContext
from contract.scope import Grant, Scope, effective_scope
from graph.document_list import ReadableDocument, ReadableWorkspace, readable


async def readable_scope(
    context: AnswerContext, grant: Grant, most_documents: int, scope: Scope | None = None
) -> tuple[list[ReadableWorkspace], list[ReadableDocument]]:
    """The workspaces `scope` (the whole grant when None) holds documents in, and its first
    `most_documents` documents."""
    return await readable(context.graph, scope or effective_scope(grant), most_documents)
